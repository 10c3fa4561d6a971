import type { z } from 'zod';
import { clockTick } from './algo-orders';
import { engineCommand, reply, riskCommand } from './commands';
import { accountEvent, engineEvent, fundingEvent, marketState, priceEvent } from './events';

/**
 * The public topic contract: names carry the schema's major version; every message carries `v`.
 * Partition = murmur2(key) mod partitions, as Kafka's Java client does, so other producers agree.
 */
export const TOPICS = {
  riskCommands: { name: 'perp.risk.commands.v1', key: 'user address', schema: riskCommand, partitions: 8 },
  engineCommands: { name: 'perp.engine.commands.v1', key: 'symbol', schema: engineCommand, partitions: 8 },
  engineEvents: { name: 'perp.engine.events.v1', key: 'symbol', schema: engineEvent, partitions: 8 },
  accountEvents: { name: 'perp.account.events.v1', key: 'user address', schema: accountEvent, partitions: 8 },
  prices: { name: 'perp.prices.v1', key: 'symbol', schema: priceEvent, partitions: 4 },
  funding: { name: 'perp.funding.v1', key: 'symbol', schema: fundingEvent, partitions: 4 },
  markets: { name: 'perp.markets.v1', key: 'symbol', schema: marketState, partitions: 1 },
  clock: { name: 'perp.clock.v1', key: 'clock', schema: clockTick, partitions: 1 },
  replies: { name: 'perp.replies.v1', key: 'requester id', schema: reply, partitions: 4 },
} as const satisfies Record<string, { name: string; key: string; schema: z.ZodType; partitions: number }>;

export type TopicId = keyof typeof TOPICS;
export type TopicMessage<T extends TopicId> = z.infer<(typeof TOPICS)[T]['schema']>;

/** Partition counts by topic name, as the bus adapters take them. */
export function topicPartitions(): Record<string, number> {
  return Object.fromEntries(Object.values(TOPICS).map((t) => [t.name, t.partitions]));
}

export class MessageValidationError extends Error {}

/** Validation at the consumer edge: a message that does not match its topic's schema is refused whole. */
export function parseMessage<T extends TopicId>(topic: T, value: unknown): TopicMessage<T> {
  const parsed = TOPICS[topic].schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new MessageValidationError(`${TOPICS[topic].name}: ${issues}`);
  }
  return parsed.data as TopicMessage<T>;
}
