import 'reflect-metadata';
import { ConsoleLogger, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/app-config';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** JSON log lines (one object per line) at and above the configured level. */
export function jsonLogger(name: string, level: AppConfig['LOG_LEVEL']): ConsoleLogger {
  return new ConsoleLogger(name, { json: true, logLevels: LEVELS.slice(0, LEVELS.indexOf(level) + 1) });
}

/** Max request body: batch orders are the largest legitimate body, far below this. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Builds a Nest app on Fastify with the project's body limit and logger; the caller listens. */
export async function createHttpApp(
  rootModule: unknown,
  config: AppConfig,
  name: string,
): Promise<INestApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, trustProxy: false });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule as never, adapter, {
    logger: jsonLogger(name, config.LOG_LEVEL),
    abortOnError: false,
  });
  app.enableShutdownHooks();
  return app;
}
