import { Controller, Get } from '@nestjs/common';
import { NATIVE_OPENAPI } from './native-openapi';
import type { OpenApiDocument } from './openapi-types';

/** GET /api/v1/openapi.json: the native and admin API as an OpenAPI 3.1 document (public). */
@Controller('api/v1')
export class OpenApiController {
  @Get('openapi.json')
  document(): OpenApiDocument {
    return NATIVE_OPENAPI;
  }
}
