import { z } from 'zod';
import { TOPICS } from './topics';

/** The AsyncAPI 3 document of every topic, generated from the same schemas the consumers validate with. */
export function buildAsyncApi(version: string) {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const [id, t] of Object.entries(TOPICS)) {
    messages[id] = {
      name: id,
      contentType: 'application/json',
      payload: z.toJSONSchema(t.schema, { unrepresentable: 'any' }),
      bindings: { kafka: { key: { type: 'string', description: t.key } } },
    };
    channels[id] = {
      address: t.name,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      bindings: {
        kafka: {
          topic: t.name,
          partitions: t.partitions,
          ...('config' in t ? { topicConfiguration: topicConfiguration(t.config) } : {}),
        },
      },
    };
    operations[`consume_${id}`] = { action: 'receive', channel: { $ref: `#/channels/${id}` } };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'perp-exchange topics',
      version,
      description:
        'Topic names and message schemas are a public contract. Keys: see each binding; partition = murmur2(key) mod partitions. Every message carries v (schema version) and a deterministic id for exactly-once effect.',
    },
    channels,
    operations,
    components: { messages },
  };
}

/** The Kafka binding's topicConfiguration: cleanup.policy as a list, durations as numbers. */
function topicConfiguration(config: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, k === 'cleanup.policy' ? v.split(',') : Number(v)]),
  );
}
