import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  FapiAuthError,
  fapiAuthErrorBody,
  FapiError,
  NativeError,
  type NativeErrorCode,
} from '@perp/contracts';

type Surface = 'fapi' | 'native';

function surfaceOf(url: string): Surface {
  return url.startsWith('/fapi') || url.startsWith('/futures') ? 'fapi' : 'native';
}

/** Status of a framework or Fastify error (bad JSON, body too large, unknown route), if it is a client error. */
function clientStatus(e: unknown): number | undefined {
  if (e instanceof HttpException) return e.getStatus() < 500 ? e.getStatus() : undefined;
  const status = (e as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function nativeCodeFor(status: number): NativeErrorCode {
  if (status === 404) return 'NOT_FOUND';
  if (status === 401) return 'INVALID_TOKEN';
  return 'INVALID_REQUEST';
}

const logger = new Logger('errors');

/**
 * Renders every error in the spec's envelope for the surface it came from. Anything unexpected is
 * logged with its stack here and answered with a generic 500 body: a client never sees a stack.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(e: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const [status, body] = errorEnvelope(e, request ?? { method: '', url: '' });
    void reply.status(status).send(body);
  }
}

/** The status and body ErrorEnvelopeFilter answers `e` with (also for answers built outside Nest). */
export function errorEnvelope(e: unknown, request: { method: string; url: string }): [number, unknown] {
  return render(e, surfaceOf(request.url ?? ''), request);
}

function render(e: unknown, surface: Surface, request: { method: string; url: string }): [number, unknown] {
  if (e instanceof FapiError) return [e.status, { code: e.code, msg: e.message }];
  if (e instanceof FapiAuthError) return [e.status, fapiAuthErrorBody(e.code, e.message)];
  if (e instanceof NativeError) {
    return e.envelope === 'wrapped'
      ? [e.status, { success: false, error: { code: e.code, message: e.message } }]
      : [e.status, { error: e.message, code: e.code }];
  }
  const status = clientStatus(e);
  if (status !== undefined) {
    const message =
      status === 404
        ? `Unknown endpoint ${request.method} ${request.url.split('?')[0]}`
        : clientMessage(e, status);
    if (surface === 'fapi') return [status, { code: status === 404 ? -1000 : -1102, msg: message }];
    return [status, { error: message, code: nativeCodeFor(status) }];
  }
  logger.error(`${request?.method} ${request?.url?.split('?')[0]}: ${(e as Error)?.stack ?? String(e)}`);
  if (surface === 'fapi')
    return [500, { code: -1000, msg: 'An unknown error occurred while processing the request.' }];
  return [500, { error: 'internal error', code: 'INTERNAL_ERROR' }];
}

function clientMessage(e: unknown, status: number): string {
  if (status === 413) return 'Request body too large.';
  if (status === 415) return 'Unsupported content type.';
  const code = (e as { code?: unknown }).code;
  const jsonError =
    code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    e instanceof SyntaxError ||
    /JSON/.test((e as Error).message ?? '');
  if (jsonError) return 'Malformed JSON body.';
  return 'Malformed request.';
}
