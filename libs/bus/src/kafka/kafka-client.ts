import {
  Kafka,
  KafkaJSAggregateError,
  KafkaJSError,
  KafkaJSNumberOfRetriesExceeded,
  type LogEntry,
  logLevel,
  type RetryOptions,
} from 'kafkajs';
import type { BusLogger } from '../bus';

/**
 * kafkajs lines at ERROR that are not failures of ours: every error response the broker sends (a
 * topic another process just created, "the group is rebalancing") is also an error its caller gets
 * and retries or reports, and a consumer crash is reported by the subscription's CRASH listener.
 */
const HANDLED_BY_CALLER = [
  /^Response /,
  /^Crash: /,
  /^Restarting the consumer/,
  /^The coordinator is not aware of this member/,
];

/** kafkajs's log into ours: its own errors at ERROR, the rest (and what its callers handle) at debug. */
export function kafkaLogCreator(logger: BusLogger) {
  return () =>
    ({ level, label, log }: LogEntry) => {
      const line = `kafkajs ${label} ${log.message}${log.error ? `: ${String(log.error)}` : ''}`;
      if (level === logLevel.ERROR && !HANDLED_BY_CALLER.some((p) => p.test(log.message))) logger.error(line);
      else logger.debug?.(line);
    };
}

/** The client of every bus instance and of `provisionTopics`. */
export function createKafka(options: {
  brokers: string[];
  clientId: string;
  logger: BusLogger;
  retry?: RetryOptions;
}): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3_000,
    retry: options.retry ?? { initialRetryTime: 100, retries: 8 },
    // kafkajs logs every rebalance and reconnect as warn/info: only its errors are worth a look.
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(options.logger),
  });
}

/**
 * Whether trying again may succeed: kafkajs marks its errors (`retriable`); an aggregate is when
 * all its parts are, and retries kafkajs gave up on are when their cause is.
 */
export function isRetriable(e: unknown): boolean {
  if (e instanceof KafkaJSAggregateError) return e.errors.length > 0 && e.errors.every((x) => isRetriable(x));
  if (e instanceof KafkaJSNumberOfRetriesExceeded) return isRetriable(e.cause);
  if (e instanceof KafkaJSError) return e.retriable;
  return (e as { retriable?: unknown } | undefined)?.retriable === true;
}
