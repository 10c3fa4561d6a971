import type { z } from 'zod';
import { clockTick } from './algo-orders';
import { type CompiledCheck, compileSchema, sameJson } from './compiled-schemas';
import { engineCommand, reply, riskCommand } from './commands';
import { accountEvent, engineEvent, fundingEvent, marketState, priceEvent } from './events';

/**
 * The public topic contract: names carry the schema's major version; every message carries `v`.
 * Partition = murmur2(key) mod partitions, as Kafka's Java client does, so other producers agree.
 * `config`: Kafka topic settings the deployment depends on (provisioning sets them). The markets
 * topic is compacted: every process reads it from the start on boot, and a broker's time retention
 * (7 days by default) would delete a market's last change, so a delisted market would come back
 * as configured. Replies matter for the request's timeout only.
 */
export const TOPICS = {
  riskCommands: { name: 'perp.risk.commands.v1', key: 'user address', schema: riskCommand, partitions: 8 },
  engineCommands: { name: 'perp.engine.commands.v1', key: 'symbol', schema: engineCommand, partitions: 8 },
  engineEvents: { name: 'perp.engine.events.v1', key: 'symbol', schema: engineEvent, partitions: 8 },
  accountEvents: { name: 'perp.account.events.v1', key: 'user address', schema: accountEvent, partitions: 8 },
  prices: { name: 'perp.prices.v1', key: 'symbol', schema: priceEvent, partitions: 4 },
  funding: { name: 'perp.funding.v1', key: 'symbol', schema: fundingEvent, partitions: 4 },
  markets: {
    name: 'perp.markets.v1',
    key: 'symbol',
    schema: marketState,
    partitions: 1,
    config: { 'cleanup.policy': 'compact' },
  },
  clock: { name: 'perp.clock.v1', key: 'clock', schema: clockTick, partitions: 1 },
  replies: {
    name: 'perp.replies.v1',
    key: 'requester id',
    schema: reply,
    partitions: 4,
    config: { 'retention.ms': String(60 * 60_000) },
  },
} as const satisfies Record<
  string,
  { name: string; key: string; schema: z.ZodType; partitions: number; config?: Record<string, string> }
>;

/**
 * Header of every account event: "1" on the last event one input gave one user, else "0". A reader
 * grouping an input's events (the user data streams) knows the group is whole even when the log
 * hands it over in two fetches, or another user's events sit between them in the partition.
 */
export const HEADER_INPUT_END = 'input-end';

export type TopicId = keyof typeof TOPICS;
export type TopicMessage<T extends TopicId> = z.infer<(typeof TOPICS)[T]['schema']>;

/** Partition counts by topic name, as the bus adapters take them. */
export function topicPartitions(): Record<string, number> {
  return Object.fromEntries(Object.values(TOPICS).map((t) => [t.name, t.partitions]));
}

/** Kafka settings by topic name, for the topics that need some (see TOPICS). */
export function topicConfigs(): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.values(TOPICS).flatMap((t) => ('config' in t ? [[t.name, { ...t.config }]] : [])),
  );
}

export class MessageValidationError extends Error {}

/**
 * Recent parses by published value, for the topics several consumer groups of one process read
 * (engine events have three readers in the embedded exchange; account events two: the history
 * projector and the gateway's user streams). The memory bus hands every group
 * the same value object, so such a message is parsed once and its parse shared; Kafka's values are
 * new objects per consumer and simply miss. A plain Map emptied every PARSE_CACHE_SIZE entries: a
 * WeakMap over the whole in-memory log cost more in GC than the parses it saved, and caching the
 * single-reader topics costs more than it saves. Shared parses are read-only: under NODE_ENV=test
 * (jest, and the processes its tests start) they are frozen, so a consumer that mutates one fails.
 */
const PARSE_CACHE_SIZE = 4096;
const parses = new Map<TopicId, Map<object, unknown>>([
  ['engineEvents', new Map()],
  ['accountEvents', new Map()],
  ['prices', new Map()],
  ['markets', new Map()],
]);
const FREEZE_PARSES = process.env['NODE_ENV'] === 'test';

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/**
 * Topics of the order path whose in-process values are not validated again: the process is the
 * trust boundary. Their producers (gateway, risk shard and router, engine shard) build them as the
 * schema's output type, and every parse happens where a value crossed a process or a restart: Kafka,
 * the bus journal replayed on start, `cloneValues`. Under NODE_ENV=test each such value is still
 * parsed and must equal its parse, so a producer that leans on the schema (a default, a transform,
 * an extra key) fails the tests instead of passing an unchecked value in production.
 */
const TRUSTED_IN_PROCESS = new Set<TopicId>([
  'riskCommands',
  'engineCommands',
  'engineEvents',
  'accountEvents',
]);

/**
 * Validation at the consumer edge: a message that does not match its topic's schema is refused whole.
 * `inProcess`: the bus message's flag (the value is the object this process published, handed over
 * as is by the memory bus); such a value on an order-path topic is returned without a parse.
 */
export function parseMessage<T extends TopicId>(
  topic: T,
  value: unknown,
  inProcess = false,
): TopicMessage<T> {
  if (inProcess && typeof value === 'object' && value !== null && TRUSTED_IN_PROCESS.has(topic)) {
    if (FREEZE_PARSES) checkInProcess(topic, value);
    return value as TopicMessage<T>;
  }
  const cache = typeof value === 'object' && value !== null ? parses.get(topic) : undefined;
  const hit = cache?.get(value as object);
  if (hit !== undefined) return hit as TopicMessage<T>;
  const data = parseValue(topic, value);
  if (cache) {
    if (FREEZE_PARSES) deepFreeze(data);
    if (cache.size >= PARSE_CACHE_SIZE) cache.clear();
    cache.set(value as object, data);
  }
  return data as TopicMessage<T>;
}

const compiled = new Map<TopicId, CompiledCheck | null>();

function compiledCheck(topic: TopicId): CompiledCheck | null {
  let check = compiled.get(topic);
  if (check === undefined) compiled.set(topic, (check = compileSchema(TOPICS[topic].schema) ?? null));
  return check;
}

/**
 * Compiles every topic's check now (about a third of a second of CPU): a process calls it before
 * it joins any consumer group, so a replacement that takes partitions over does not spend its first
 * turn compiling while their users wait. Tests compile lazily, on each topic's first parse.
 */
export function compileMessageChecks(): void {
  for (const topic of Object.keys(TOPICS) as TopicId[]) compiledCheck(topic);
}

/**
 * A value the topic's compiled check accepts is its own parse (see compiled-schemas.ts): taken as
 * it is. Anything else goes to zod. Under NODE_ENV=test the parse runs too and must agree, and the
 * value is frozen: a consumer may no longer mutate what it was handed, since it is the bus's value.
 */
function parseValue(topic: TopicId, value: unknown): unknown {
  const check = compiledCheck(topic);
  if (check?.(value)) {
    if (FREEZE_PARSES) checkCompiled(topic, value);
    return value;
  }
  const parsed = TOPICS[topic].schema.safeParse(value);
  if (!parsed.success) throw validationError(topic, parsed.error.issues);
  return parsed.data;
}

/** Tests only: what the compiled check accepted, zod accepts as the same value. */
function checkCompiled(topic: TopicId, value: unknown): void {
  const parsed = TOPICS[topic].schema.safeParse(value);
  if (!parsed.success || !sameJson(parsed.data, value))
    throw new Error(
      `${TOPICS[topic].name}: the compiled check accepted a value zod ${parsed.success ? 'changes' : 'refuses'}: ${JSON.stringify(value)}`,
    );
  deepFreeze(value);
}

function validationError(topic: TopicId, issues: z.ZodError['issues']): MessageValidationError {
  const text = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return new MessageValidationError(`${TOPICS[topic].name}: ${text}`);
}

/** Tests only: an unvalidated in-process value must be valid and equal to its own parse. */
function checkInProcess(topic: TopicId, value: object): void {
  const parsed = TOPICS[topic].schema.safeParse(value);
  if (!parsed.success) throw validationError(topic, parsed.error.issues);
  if (!sameJson(parsed.data, value))
    throw new Error(
      `${TOPICS[topic].name}: an in-process value differs from its parse (the consumer would see ` +
        `another value than after Kafka or a restart): ${JSON.stringify(value)} vs ${JSON.stringify(parsed.data)}`,
    );
  deepFreeze(value);
}
