import { GatewayModule } from '../gateway.module';
import { buildOpenApi, type OpenApiDocument } from './build-openapi';
import { documentNativeOrders } from './native-orders-doc';
import { controllersOf, declaredRoutes } from './routes';
import type { Surface } from './surfaces';

let built: Record<Surface, OpenApiDocument> | undefined;

/**
 * The gateway's two OpenAPI documents, built once from its controllers' decorators and the schemas
 * that parse each route's input (read from the classes; nothing is instantiated).
 */
export function gatewayDocuments(): Record<Surface, OpenApiDocument> {
  if (built) return built;
  documentNativeOrders();
  const routes = declaredRoutes(controllersOf(GatewayModule));
  built = { fapi: buildOpenApi('fapi', routes), native: buildOpenApi('native', routes) };
  return built;
}
