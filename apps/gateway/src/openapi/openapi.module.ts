import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';

/** Serves the FAPI and native OpenAPI documents and the reference page. */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule {}
