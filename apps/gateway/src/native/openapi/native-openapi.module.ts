import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';

/** Serves the native API's OpenAPI document. */
@Module({ controllers: [OpenApiController] })
export class NativeOpenApiModule {}
