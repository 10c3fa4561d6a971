import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { NativeError } from '@perp/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiDoc } from './api-doc';
import { gatewayDocuments } from './documents';
import { REFERENCE_ASSETS, REFERENCE_PAGE, type ReferenceAsset, referenceAsset } from './reference-page';

const document = z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document' });

/** The API documents and the reference page (public). */
@Controller()
export class OpenApiController {
  @Get('api/v1/openapi/fapi.json')
  @ApiDoc({ tag: 'docs', summary: 'The FAPI OpenAPI 3.1 document', response: document })
  fapi() {
    return gatewayDocuments().fapi;
  }

  @Get(['api/v1/openapi/native.json', 'api/v1/openapi.json'])
  @ApiDoc({ tag: 'docs', summary: 'This OpenAPI 3.1 document (native, admin, probes)', response: document })
  native() {
    return gatewayDocuments().native;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  @ApiDoc({
    tag: 'docs',
    summary: 'The browsable reference of both documents',
    response: z.string(),
    contentType: 'text/html',
  })
  page() {
    return REFERENCE_PAGE;
  }

  @Get('docs/:file')
  @ApiDoc({
    tag: 'docs',
    summary: 'A file of the reference page (Swagger UI, served locally)',
    path: { file: z.enum(Object.keys(REFERENCE_ASSETS) as [ReferenceAsset, ...ReferenceAsset[]]) },
    response: z.string(),
    contentType: 'application/octet-stream',
    errors: ['NOT_FOUND'],
  })
  async asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    if (!Object.hasOwn(REFERENCE_ASSETS, file)) throw new NativeError('NOT_FOUND', `no file ${file}`);
    const name = file as ReferenceAsset;
    await reply
      .header('content-type', REFERENCE_ASSETS[name])
      .header('cache-control', 'public, max-age=3600')
      .send(referenceAsset(name));
  }
}
