import 'reflect-metadata';
import { ConsoleLogger, type INestApplication, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { instrumentHttp } from '../metrics/http-metrics';
import { Metrics } from '../metrics/metrics';
import { HttpFastLanes } from './fast-lanes';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The body bytes exactly as received, for JSON and form bodies: signed FAPI requests are
     * verified over these, never over a re-serialised object. Undefined when there was no body
     * (GET) or another content type.
     */
    rawBody?: Buffer;
  }
}

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** JSON log lines (one object per line) at and above the configured level. */
export function jsonLogger(name: string, level: AppConfig['LOG_LEVEL']): ConsoleLogger {
  return new ConsoleLogger(name, { json: true, logLevels: LEVELS.slice(0, LEVELS.indexOf(level) + 1) });
}

/** Max request body: batch orders are the largest legitimate body, far below this. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * A form body as an object: a repeated key becomes an array, as in the query string. No prototype,
 * so a `__proto__` or `constructor` field is just a field.
 */
export function parseFormBody(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/**
 * JSON and form parsers that keep the raw bytes on `request.rawBody`. An empty (or blank) JSON body
 * is `{}`: some Binance clients send `Content-Type: application/json` with nothing after it.
 * Malformed JSON keeps Fastify's error (FST_ERR_CTP_INVALID_JSON_BODY), which the error filter
 * answers with -1102 on FAPI and INVALID_REQUEST on the native API.
 */
export function registerBodyParsers(fastify: FastifyInstance, bodyLimit = BODY_LIMIT_BYTES): void {
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    (request: FastifyRequest, body: Buffer, done) => {
      request.rawBody = body;
      const text = body.toString('utf8');
      if (text.trim() === '') return done(null, {});
      json(request, text, done);
    },
  );
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit },
    (request: FastifyRequest, body: Buffer, done) => {
      request.rawBody = body;
      done(null, parseFormBody(body.toString('utf8')));
    },
  );
}

export interface HttpAppOptions {
  /** Replaces the JSON console logger (tests capture output this way). */
  logger?: LoggerService | false;
}

/** Builds a Nest app on Fastify with the project's body limit, parsers and logger; the caller listens. */
export async function createHttpApp(
  rootModule: unknown,
  config: AppConfig,
  name: string,
  options: HttpAppOptions = {},
): Promise<INestApplication> {
  // trustProxy stays off: the client address comes from clientIp() with TRUSTED_PROXIES.
  const adapter = new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, trustProxy: false });
  registerBodyParsers(adapter.getInstance() as unknown as FastifyInstance);
  const app = await NestFactory.create<NestFastifyApplication>(rootModule as never, adapter, {
    logger: options.logger ?? jsonLogger(name, config.LOG_LEVEL),
    abortOnError: false,
    // Nest's own parsers would replace the ones above (and drop the raw bytes).
    bodyParser: false,
  });
  // Before init registers the routes, so the hook times all of them.
  const metrics = app.get(Metrics, { strict: false });
  metrics.app = name;
  instrumentHttp(adapter.getInstance() as unknown as FastifyInstance, metrics);
  app.get(HttpFastLanes, { strict: false }).install(adapter.getInstance().server);
  app.enableShutdownHooks();
  return app;
}
