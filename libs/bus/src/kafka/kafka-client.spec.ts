import { failOnOpenKafkaClients } from '@perp/testing';
import {
  KafkaJSAggregateError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  type LogEntry,
  logLevel,
} from 'kafkajs';
import type { BusLogger } from '../bus';
import { isRetriable, kafkaLogCreator } from './kafka-client';

failOnOpenKafkaClients();

const protocolError = (type: string, retriable: boolean) =>
  new KafkaJSProtocolError(Object.assign(new Error(type), { type, code: 1, retriable }));

describe("kafkajs's log in ours", () => {
  function levelOf(level: logLevel, message: string, error?: string): string {
    const seen: string[] = [];
    const logger: BusLogger = {
      log: () => seen.push('log'),
      warn: () => seen.push('warn'),
      error: () => seen.push('error'),
      debug: () => seen.push('debug'),
    };
    const entry: LogEntry = {
      namespace: 'x',
      level,
      label: level === logLevel.ERROR ? 'ERROR' : 'WARN',
      log: { timestamp: '', message, ...(error ? { error } : {}) },
    };
    kafkaLogCreator(logger)()(entry);
    return seen.join();
  }

  it('error responses its caller handles (a topic just created, a rebalance) go to debug', () => {
    expect(
      levelOf(
        logLevel.ERROR,
        'Response CreateTopics(key: 19, version: 3)',
        'Topic with this name already exists',
      ),
    ).toBe('debug');
    expect(
      levelOf(
        logLevel.ERROR,
        'Response Heartbeat(key: 12, version: 3)',
        'The group is rebalancing, so a rejoin is needed',
      ),
    ).toBe('debug');
    expect(levelOf(logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded: The group is rebalancing')).toBe(
      'debug',
    );
    expect(levelOf(logLevel.ERROR, 'Restarting the consumer in 300ms')).toBe('debug');
  });

  it('its own failures stay errors; warnings go to debug', () => {
    expect(levelOf(logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe('error');
    expect(levelOf(logLevel.WARN, 'Could not create topics')).toBe('debug');
  });
});

describe('isRetriable', () => {
  it("follows kafkajs's marks, through aggregates and exhausted retries", () => {
    expect(isRetriable(protocolError('UNKNOWN_TOPIC_OR_PARTITION', true))).toBe(true);
    expect(isRetriable(protocolError('TOPIC_AUTHORIZATION_FAILED', false))).toBe(false);
    expect(isRetriable(new KafkaJSNonRetriableError('no'))).toBe(false);
    const exhausted = new KafkaJSNumberOfRetriesExceeded(protocolError('LEADER_NOT_AVAILABLE', true), {
      retryCount: 5,
      retryTime: 100,
    });
    expect(isRetriable(exhausted)).toBe(true);
    const mixed = new KafkaJSAggregateError('create', [
      protocolError('REQUEST_TIMED_OUT', true),
      protocolError('POLICY_VIOLATION', false),
    ]);
    expect(isRetriable(mixed)).toBe(false);
    expect(isRetriable(new Error('plain'))).toBe(false);
  });
});
