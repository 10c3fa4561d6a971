import RequestQueue from 'kafkajs/src/network/requestQueue';
import { stopIdleRequestChecks } from './request-queue-idle';

// kafkajs's queue as Connection builds it; `sent` records what went on the wire.
type Queue = RequestQueue & {
  push(r: unknown): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
};

const silent = {
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
};

function newQueue(): { queue: Queue; sent: number[]; push(id: number): Promise<unknown> } {
  const queue = new (RequestQueue as unknown as new (o: object) => Queue)({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'spec',
    broker: 'spec:9092',
    logger: silent,
  });
  const sent: number[] = [];
  const push = (correlationId: number) =>
    new Promise((resolve, reject) =>
      queue.push({
        entry: { correlationId, resolve, reject, apiName: 'Fetch', apiKey: 1, apiVersion: 11 },
        expectResponse: true,
        sendRequest: () => sent.push(correlationId),
      }),
    );
  return { queue, sent, push };
}

const answer = (queue: Queue, correlationId: number) =>
  queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

describe('kafkajs request queue with idle checks stopped', () => {
  beforeAll(() => stopIdleRequestChecks());

  it('schedules no check once nothing waits (kafkajs re-armed a 1 ms timer forever)', async () => {
    const { queue, push } = newQueue();
    const done = push(1);
    answer(queue, 1);
    await done;
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('still sends a request that waited for the in-flight limit when the one before is answered', async () => {
    const { queue, sent, push } = newQueue();
    const first = push(1);
    const second = push(2);
    expect(sent).toEqual([1]);
    answer(queue, 1);
    await first;
    expect(sent).toEqual([1, 2]);
    answer(queue, 2);
    await second;
    // The check push scheduled for the waiting request runs once, and schedules no other.
    await new Promise((r) => setTimeout(r, 40));
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('still sends a request held by client-side throttling when the throttle ends', async () => {
    const { queue, sent, push } = newQueue();
    queue.maybeThrottle(30);
    const held = push(1);
    expect(sent).toEqual([]);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((r) => setTimeout(r, 80));
    expect(sent).toEqual([1]);
    answer(queue, 1);
    await held;
    queue.destroy();
  });
});
