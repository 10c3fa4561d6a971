import {
  FAPI_AUTH_ERRORS,
  FAPI_ERRORS,
  type FapiErrorName,
  NATIVE_ERRORS,
  type NativeErrorCode,
  type RawParams,
} from '@perp/contracts';
import { z } from 'zod';
import { SIGNED_ENDPOINT, type SignedEndpoint } from '../access/signed/signed';
import { type CountRule, DEFAULT_WEIGHT, PUBLIC_WEIGHTS } from '../rate-limits/rate-limit-rules';
import { FAPI_WEIGHT } from '../rate-limits/weight.decorator';
import { FapiAuthErrorBody, FapiErrorBody } from './fapi-responses';
import { isOptional, type JsonSchema, SchemaSet } from './json-schemas';
import { NativeErrorBody } from './native-responses';
import { DOCUMENTS, OPERATION_ROUTES, SIGNED_PARAMS } from './openapi-info';
import type { DeclaredRoute } from './routes';
import { type Surface, surfaceOf } from './surfaces';

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
};

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/**
 * Weight of a FAPI route as the weight guard decides it (`@Signed`, `@Weight`, PUBLIC_WEIGHTS,
 * else 1): a number, or in words when it depends on the parameters.
 */
function weightOf(route: DeclaredRoute, signed: SignedEndpoint | undefined): number | string {
  const declared = Reflect.getMetadata(FAPI_WEIGHT, route.handler) as CountRule | undefined;
  const rule = signed?.weight ?? declared ?? PUBLIC_WEIGHTS[route.path] ?? DEFAULT_WEIGHT;
  if (typeof rule === 'number') return rule;
  return `depends on the parameters (${rule({} as RawParams)} without any)`;
}

/** Error responses, by HTTP status: the codes the route answers with, in their envelope. */
function errorResponses(surface: Surface, names: readonly string[], schemas: SchemaSet) {
  const byStatus = new Map<number, string[]>();
  const add = (status: number, label: string) =>
    byStatus.set(status, [...(byStatus.get(status) ?? []), label]);
  const out: Record<string, JsonSchema> = {};
  if (surface === 'fapi') {
    const business = names.filter((n): n is FapiErrorName => n in FAPI_ERRORS);
    for (const n of business) add(FAPI_ERRORS[n].http, `${FAPI_ERRORS[n].code} ${n}`);
    const auth = names.filter((n) => n in FAPI_AUTH_ERRORS) as (keyof typeof FAPI_AUTH_ERRORS)[];
    for (const [status, labels] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const codes = business.filter((n) => FAPI_ERRORS[n].http === status).map((n) => FAPI_ERRORS[n].code);
      out[String(status)] = {
        description: labels.join(', '),
        content: json({
          allOf: [schemas.of(FapiErrorBody, 'output')],
          properties: { code: { enum: codes } },
        }),
      };
    }
    for (const status of [...new Set(auth.map((a) => FAPI_AUTH_ERRORS[a]))].sort()) {
      const codes = auth.filter((a) => FAPI_AUTH_ERRORS[a] === status);
      out[String(status)] = {
        description: `Authentication: ${codes.join(', ')} ({success:false} envelope)`,
        content: json({
          allOf: [schemas.of(FapiAuthErrorBody, 'output')],
          properties: { error: { properties: { code: { enum: codes } } } },
        }),
      };
    }
    return out;
  }
  const codes = names.filter((n): n is NativeErrorCode => n in NATIVE_ERRORS);
  for (const c of codes) add(NATIVE_ERRORS[c], c);
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0]))
    out[String(status)] = {
      description: list.join(', '),
      content: json({ allOf: [schemas.of(NativeErrorBody, 'output')], properties: { code: { enum: list } } }),
    };
  return out;
}

/** An object schema of a parameter shape, as a client sends it. */
function objectOf(shape: Record<string, z.ZodType>, schemas: SchemaSet): JsonSchema {
  return schemas.of(z.object(shape), 'input');
}

function parametersOf(shape: Record<string, z.ZodType>, where: 'query' | 'path', schemas: SchemaSet) {
  return Object.entries(shape).map(([name, schema]) => {
    const { description, ...rest } = schemas.of(schema, 'input');
    return {
      name,
      in: where,
      required: where === 'path' || !isOptional(schema),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(route: DeclaredRoute, surface: Surface, schemas: SchemaSet): JsonSchema {
  const doc = route.doc;
  if (!doc) throw new Error(`${route.method.toUpperCase()} ${route.path} has no @ApiDoc`);
  const signed = Reflect.getMetadata(SIGNED_ENDPOINT, route.handler) as SignedEndpoint | undefined;
  const apiKeyOnly = route.guards.includes('UserStreamGuard');
  const jwt = route.guards.includes('JwtAuthGuard');
  const admin = route.guards.includes('AdminTokenGuard');
  const errors: string[] = [...(doc.errors ?? [])];
  const parameters: JsonSchema[] = [];
  let requestBody: JsonSchema | undefined;
  const extra: JsonSchema = {};
  const notes: string[] = doc.description ? [doc.description] : [];

  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathShape = Object.fromEntries(pathNames.map((n) => [n, doc.path?.[n] ?? z.string()]));
  parameters.push(...parametersOf(pathShape, 'path', schemas));

  if (surface === 'fapi') {
    const shape = route.input?.kind === 'fapi' ? route.input.shape : {};
    // The signature parameters go in the query (or a form body), never in a JSON body.
    if (signed) parameters.push(...parametersOf(SIGNED_PARAMS, 'query', schemas));
    if (route.method === 'get' || route.method === 'delete')
      parameters.push(...parametersOf(shape, 'query', schemas));
    else if (Object.keys(shape).length) {
      const body = objectOf(shape, schemas);
      requestBody = {
        content: {
          'application/json': { schema: body },
          'application/x-www-form-urlencoded': { schema: body },
        },
      };
      notes.push('These parameters may also be sent in the query string (Binance’s convention).');
    }
    const weight = weightOf(route, signed);
    extra['x-weight'] = weight;
    notes.push(`Weight: ${weight}.${signed?.orders ? ' Counts against the order-count limits.' : ''}`);
    errors.push('TOO_MANY_REQUESTS');
    if (signed) {
      errors.push(
        'INVALID_TIMESTAMP',
        'INVALID_API_KEY',
        'API_KEY_DISABLED',
        'IP_NOT_ALLOWED',
        'SIGNATURE_INVALID',
      );
      extra['x-security-type'] = signed.type;
    }
    if (apiKeyOnly) errors.push('INVALID_API_KEY', 'API_KEY_DISABLED', 'IP_NOT_ALLOWED');
  } else {
    const body = route.input?.kind === 'native-body' ? route.input.shape : doc.body;
    const query = route.input?.kind === 'native-query' ? route.input.shape : doc.query;
    if (body) requestBody = { required: true, content: json(objectOf(body, schemas)) };
    if (query) parameters.push(...parametersOf(query, 'query', schemas));
    if (jwt || admin) errors.push('INVALID_TOKEN');
  }

  const security =
    signed || apiKeyOnly ? [{ apiKey: [] }] : jwt ? [{ jwt: [] }] : admin ? [{ adminToken: [] }] : undefined;
  const status = String(doc.status ?? 200);
  const success =
    status === '204'
      ? { description: 'Done (no body)' }
      : {
          description: 'Success',
          content: {
            [doc.contentType ?? 'application/json']: {
              schema: doc.response ? schemas.of(doc.response, 'output') : { type: 'object' },
            },
          },
        };
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [doc.tag],
    summary: doc.summary,
    ...(notes.length ? { description: notes.join('\n\n') } : {}),
    ...(security ? { security } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: { [status]: success, ...errorResponses(surface, [...new Set(errors)], schemas) },
    ...extra,
  };
}

/** One of the two API documents, from the routes' own decorators and parsing schemas. */
export function buildOpenApi(surface: Surface, routes: readonly DeclaredRoute[]): OpenApiDocument {
  const schemas = new SchemaSet();
  const paths: OpenApiDocument['paths'] = {};
  const all = surface === 'native' ? [...routes, ...OPERATION_ROUTES] : routes;
  for (const route of all) {
    if (surfaceOf(route.path) !== surface) continue;
    (paths[route.path] ??= {})[route.method] = operation(route, surface, schemas);
  }
  const info = DOCUMENTS[surface];
  const used = new Set(
    Object.values(paths).flatMap((item) => Object.values(item).map((op) => (op.tags as string[])[0])),
  );
  return {
    openapi: '3.1.0',
    info: info.info,
    tags: info.tags.filter((t) => used.has(t.name)),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: info.securitySchemes,
    },
  };
}
