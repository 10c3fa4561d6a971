import { Logger } from '@nestjs/common';
import type { BusConfig, BusLogger } from './bus';

/** Nest's logger (JSON lines in the apps) unless the configuration brings one. */
export function busLogger(config: Pick<BusConfig, 'logger'>): BusLogger {
  return config.logger ?? new Logger('Bus');
}

/** For tests and benchmarks that assert on behaviour, not on log lines. */
export const silentLogger: BusLogger = { log() {}, warn() {}, error() {}, debug() {} };

/** Delay before redelivering a message whose handler failed `attempt` times (1, 2, ...). */
export function retryDelay(attempt: number, retry: BusConfig['retry'] = {}): number {
  const initial = retry.initialMs ?? 50;
  const max = retry.maxMs ?? 5_000;
  return Math.min(max, initial * 2 ** Math.min(attempt - 1, 20));
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
