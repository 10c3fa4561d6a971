import { resolve } from 'node:path';
import { z } from 'zod';

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `a URL starting with ${protocols.join(' or ')}//`,
  );

/**
 * The rule of every integer variable (and of @perp/auth's JWT_TTL_SECONDS): digits only, not trimmed,
 * then the bounds; without `max`, up to the largest safe integer. z.coerce.number() read '' and ' '
 * as 0, a valid and different value, and took '1e3' and '0x10'.
 */
export const wholeNumber = (min: number, max?: number) => {
  const n = z.number().int().min(min);
  return z
    .string()
    .regex(/^\d+$/, 'a whole number (digits only)')
    .transform(Number)
    .pipe(max === undefined ? n : n.max(max));
};

// Unset takes the default, but '' or blanks are an error, as for the numbers, enums and URLs: deploy
// tools write `FOO=` for "unset", and guessing what was meant is what this check is here to avoid.
const text = () => z.string().regex(/\S/, { message: 'empty: give a value or leave it unset', abort: true });

/**
 * A shard's snapshot policy, `<PREFIX>_<NAME>` for each prefix (@perp/infrastructure
 * snapshotPolicyFromEnv). Unset: ShardPartitions' defaults (every 1000 inputs, every 10 s, not
 * sooner than 1 s after the previous one; replays publish only what the group had not committed).
 */
const shardSnapshotVars = {
  SNAPSHOT_EVERY: wholeNumber(1, 100_000_000).optional(),
  // Below 1 s it is also the period of the check for due snapshots: not a busy timer.
  SNAPSHOT_INTERVAL_MS: wholeNumber(100, 86_400_000).optional(),
  SNAPSHOT_MIN_INTERVAL_MS: wholeNumber(0, 86_400_000).optional(),
  REPLAY_REPUBLISH: z.enum(['0', '1']).optional(),
};
type ShardSnapshotVars = typeof shardSnapshotVars;
export type ShardPrefix = 'RISK' | 'ENGINE';
export type ShardSnapshotEnv = z.output<z.ZodObject<ShardSnapshotVars>>;

function prefixed<P extends ShardPrefix>(prefix: P) {
  return Object.fromEntries(
    Object.entries(shardSnapshotVars).map(([name, schema]) => [`${prefix}_${name}`, schema]),
  ) as { [K in keyof ShardSnapshotVars as `${P}_${K}`]: ShardSnapshotVars[K] };
}

/** Every environment variable the apps read, validated once at start (README lists them). */
export const envSchema = z
  .object({
    PORT: wholeNumber(0, 65535).default(8080),
    HOST: text().default('0.0.0.0'),
    CHAIN: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'lowercase chain folder name')
      .default('devnet'),
    DEPLOY_DIR: text().default('deploy'),
    DATA_DIR: text().default('data'),
    BUS: z.enum(['memory', 'kafka']).default('memory'),
    KAFKA_BROKERS: text().optional(),
    KAFKA_CLIENT_ID: text().default('perp-exchange'),
    // Consumer group liveness: a killed member's partitions move after the session timeout, and a
    // rebalance waits for members to rejoin (they learn of it on their next heartbeat). 6 s is a
    // stock broker's group.min.session.timeout.ms; lower it on the broker for faster failover.
    KAFKA_SESSION_TIMEOUT_MS: wholeNumber(500, 300_000).default(6_000),
    KAFKA_HEARTBEAT_INTERVAL_MS: wholeNumber(50, 60_000).default(500),
    KAFKA_REBALANCE_TIMEOUT_MS: wholeNumber(500, 300_000).default(6_000),
    // The librdkafka mock cluster drops a follower's SyncGroup that arrives after the leader's
    // (INVALID_REQUEST): a short wait in the leader lets a busy follower sync first. 0 for a broker.
    KAFKA_LEADER_SYNC_DELAY_MS: wholeNumber(0, 5_000).default(0),
    // A killed process's group members are evicted at once: each process keeps a named Redis
    // connection, members watch every this many ms which processes are still connected, and a
    // survivor removes a dead process's members from their groups (LeaveGroup on their behalf)
    // instead of waiting for the session timeout. 0: off (the session timeout alone). Needs REDIS_URL.
    KAFKA_MEMBER_WATCH_MS: wholeNumber(0, 60_000).default(250),
    // Longest a fetch waits for data. A broker answers as soon as data arrives; the librdkafka mock
    // holds an empty fetch for the whole wait, so there it is each hop's added latency.
    KAFKA_FETCH_MAX_WAIT_MS: wholeNumber(0, 10_000).default(100),
    // A busy consumer commits its position at most this often (each commit is a request to the
    // group's coordinator); a crash replays at most this much more of the log, idempotently.
    KAFKA_COMMIT_INTERVAL_MS: wholeNumber(0, 60_000).default(100),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
    ADMIN_TOKEN: text().min(16, 'at least 16 characters').optional(),
    TRUSTED_PROXIES: text().default(''),
    // Gateway auth secrets: checked by @perp/auth checkAuthEnv before the gateway or the exchange
    // builds its modules (generated into DATA_DIR in embedded mode when unset).
    JWT_SECRET: text().optional(),
    JWT_TTL_SECONDS: text().optional(),
    API_KEY_MASTER_KEY: text().optional(),
    API_KEY_MASTER_KEY_PREVIOUS: text().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']).default('log'),
    // Gateway rate limits (Binance USD-M defaults); counters live in the hot store, shared by replicas.
    RATE_LIMIT_WEIGHT_PER_MIN: wholeNumber(1).default(2400),
    RATE_LIMIT_ORDERS_PER_10S: wholeNumber(1).default(300),
    RATE_LIMIT_ORDERS_PER_MIN: wholeNumber(1).default(1200),
    RATE_LIMIT_LOGIN_PER_MIN: wholeNumber(1).default(60),
    // How long the gateway waits for risk, the engine or a price copy before answering 503.
    UPSTREAM_TIMEOUT_MS: wholeNumber(100, 120_000).default(10_000),
    // WebSocket streams: a connection is closed (4001) this long after it opened, as Binance does at 24 h.
    WS_CONNECTION_LIFETIME_MS: wholeNumber(1000, 7 * 86_400_000).default(86_400_000),
    // Embedded bus (journaled): messages per partition held in memory; older ones are read back
    // from the journal by the rare reader that needs them (a seek back, a new group from the start).
    BUS_MEMORY_RETAIN: wholeNumber(1, 10_000_000).default(5_000),
    // Embedded bus: journal segments are deleted once their last write is this many hours old
    // (Kafka's default 7 days); at least 2, so a user stream's listen key (60 min) can replay.
    BUS_MEMORY_RETENTION_HOURS: wholeNumber(2, 87_600).default(168),
    // Embedded bus: a journal segment file holds about this many bytes before the next one starts.
    BUS_MEMORY_SEGMENT_BYTES: wholeNumber(1000, 4_294_967_296).default(134_217_728),
    // Embedded bus: longest a background consumer (history and market-data projections) waits for
    // the order path's turns to have nothing in flight before it takes its own turn anyway.
    BUS_MEMORY_BACKGROUND_MS: wholeNumber(0, 10_000).default(10),
    // History projection: after a turn smaller than a full batch, wait this long before the next,
    // so account events are written to Postgres in fewer, larger transactions.
    HISTORY_BATCH_MS: wholeNumber(0, 10_000).default(50),
    // Public market projection, likewise: at 0 every engine event became its own Postgres
    // transaction (the largest CPU cost of a lightly loaded order path); 20 ms keeps the public
    // reads well inside their 100 ms lag budget.
    MARKET_DATA_BATCH_MS: wholeNumber(0, 10_000).default(20),
    // Index prices: operator pushes only (tests, clusters), the deterministic simulated feed
    // (embedded demo; deploy/scripts/start.sh sets it), or the composite of each market's
    // configured indexSources (chain.json), run by the market-data service.
    PRICE_SOURCE: z.enum(['simulated', 'admin', 'composite']).default('admin'),
    // JSON-RPC endpoint of the deployment's chain for on-chain index sources; overrides chain.json's
    // rpcUrl (keep keyed endpoints here, not in the chain file).
    CHAIN_RPC_URL: url(['http:', 'https:']).optional(),
    PRICE_FEED_INTERVAL_MS: wholeNumber(10, 3_600_000).default(1000),
    PRICE_FEED_SEED: wholeNumber(0, 0xffffffff).default(1),
    // The keeper's clock: one tick on the log every KEEPER_TICK_MS (GTD expiry reads its time);
    // KEEPER_CLOCK_SKEW_MS moves its time ahead (test chains: a GTD order expires without waiting).
    KEEPER_TICK_MS: wholeNumber(10, 60_000).default(1000),
    KEEPER_CLOCK_SKEW_MS: wholeNumber(0, 86_400_000).default(0),
    // The risk and engine shards' snapshot policies (shardSnapshotVars).
    ...prefixed('RISK'),
    ...prefixed('ENGINE'),
  })
  .superRefine((env, ctx) => {
    if (env.BUS === 'kafka' && env.KAFKA_BROKERS === undefined)
      ctx.addIssue({ code: 'custom', path: ['KAFKA_BROKERS'], message: 'required when BUS=kafka' });
    // This runs even when a field failed, which then holds its raw string: compare two numbers only.
    const beat: unknown = env.KAFKA_HEARTBEAT_INTERVAL_MS;
    const session: unknown = env.KAFKA_SESSION_TIMEOUT_MS;
    if (typeof beat === 'number' && typeof session === 'number' && beat >= session)
      ctx.addIssue({
        code: 'custom',
        path: ['KAFKA_HEARTBEAT_INTERVAL_MS'],
        message: 'must be below KAFKA_SESSION_TIMEOUT_MS',
      });
  });

export type AppConfig = z.infer<typeof envSchema> & { deployDir: string; dataDir: string };

function invalidConfiguration(issues: z.core.$ZodIssue[], name = (path: string) => path): Error {
  const lines = issues.map((i) => {
    const path = i.path.join('.');
    return `  ${path ? name(path) : '(env)'}: ${i.message}`;
  });
  return new Error(`invalid configuration:\n${lines.join('\n')}`);
}

/** Parses the environment; throws one readable error listing every bad variable. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues);
  return {
    ...parsed.data,
    deployDir: resolve(parsed.data.DEPLOY_DIR),
    dataDir: resolve(parsed.data.DATA_DIR),
  };
}

/**
 * One shard's snapshot variables, unprefixed, with envSchema's rules and error. Read where the shard
 * is built (benches and tests set them in process.env); an app has checked them at start already.
 */
export function loadShardSnapshotEnv(
  prefix: ShardPrefix,
  env: NodeJS.ProcessEnv = process.env,
): ShardSnapshotEnv {
  const names = Object.keys(shardSnapshotVars);
  const parsed = z
    .object(shardSnapshotVars)
    .safeParse(Object.fromEntries(names.map((name) => [name, env[`${prefix}_${name}`]])));
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues, (name) => `${prefix}_${name}`);
  return parsed.data;
}
