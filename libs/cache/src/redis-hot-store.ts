import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import {
  assertAmount,
  assertDecimal,
  assertDisjoint,
  assertTtl,
  type ErrorReporter,
  type HotEntry,
  type HotStore,
  type MessageHandler,
  type Unsubscribe,
  type WindowCount,
} from './hot-store';
import { HINCR_DECIMAL, INCR_WINDOW } from './redis-scripts';

/** Fields per HDEL inside hupdate's transaction: bounds the argument spread and the command size. */
const HDEL_CHUNK = 1000;

export interface RedisHotStoreOptions {
  /** Prepended to every key and channel (e.g. one deployment per prefix on a shared Redis). */
  prefix?: string;
  onError?: ErrorReporter;
}

/**
 * The hot store on Redis (ioredis). Commands share one connection; subscriptions use a second one
 * (a subscribed Redis connection accepts nothing else), opened on the first subscribe. Both
 * reconnect by themselves, and ioredis re-subscribes after a reconnect.
 */
export class RedisHotStore implements HotStore {
  private subscriber?: Redis;
  private readonly channels = new Map<string, Set<MessageHandler>>();
  /** Per channel, the tail of its SUBSCRIBE/UNSUBSCRIBE calls: they must reach Redis in order. */
  private readonly channelOps = new Map<string, Promise<void>>();
  private readonly prefix: string;
  private readonly onError: ErrorReporter;

  private constructor(
    private readonly client: Redis,
    options: RedisHotStoreOptions,
  ) {
    this.prefix = options.prefix ?? '';
    const logger = new Logger('RedisHotStore');
    this.onError = options.onError ?? ((e, context) => logger.error(`${context}: ${String(e)}`));
    // Without a listener ioredis prints every connection error; readiness reports them instead.
    client.on('error', () => undefined);
  }

  /** Connects (rejecting if Redis cannot be reached now) and returns the store. */
  static async connect(url: string, options: RedisHotStoreOptions = {}): Promise<RedisHotStore> {
    // Auto-pipelining: the commands a process issues in one event-loop turn (a shard turn's account
    // writes, concurrent requests' key and weight reads) share one socket write and one round trip.
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3, enableAutoPipelining: true });
    let cause: Error | undefined;
    const remember = (e: Error) => (cause ??= e);
    client.on('error', remember);
    try {
      await client.connect();
    } catch (e) {
      client.disconnect();
      // connect() only says "Connection is closed"; the error event has the reason (no URL: it may hold a password).
      throw new Error(`cannot connect to Redis: ${(cause ?? (e as Error)).message}`, { cause: e });
    } finally {
      client.off('error', remember);
    }
    return new RedisHotStore(client, options);
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(this.k(key))) ?? undefined;
  }

  async set(key: string, value: string, options: { ttlMs?: number } = {}): Promise<void> {
    if (options.ttlMs === undefined) await this.client.set(this.k(key), value);
    else {
      assertTtl(options.ttlMs);
      await this.client.set(this.k(key), value, 'PX', options.ttlMs);
    }
  }

  async setMany(entries: readonly HotEntry[]): Promise<void> {
    if (!entries.length) return;
    for (const e of entries) if (e.ttlMs !== undefined) assertTtl(e.ttlMs);
    const pipeline = this.client.pipeline();
    for (const e of entries)
      if (e.ttlMs === undefined) pipeline.set(this.k(e.key), e.value);
      else pipeline.set(this.k(e.key), e.value, 'PX', e.ttlMs);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    if (options.ttlMs === undefined) return (await this.client.set(this.k(key), value, 'NX')) === 'OK';
    assertTtl(options.ttlMs);
    return (await this.client.set(this.k(key), value, 'PX', options.ttlMs, 'NX')) === 'OK';
  }

  async del(...keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return this.client.del(...[...new Set(keys)].map((k) => this.k(k)));
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return (await this.client.pexpire(this.k(key), ttlMs)) === 1;
  }

  async incrWindow(key: string, amount: number, windowMs: number): Promise<WindowCount> {
    assertAmount(amount);
    assertTtl(windowMs, 'windowMs');
    const [count, resetInMs] = (await this.script(INCR_WINDOW, [key], [amount, windowMs])) as [
      number,
      number,
    ];
    return { count, resetInMs };
  }

  async hget(key: string, field: string): Promise<string | undefined> {
    return (await this.client.hget(this.k(key), field)) ?? undefined;
  }

  async hset(key: string, fields: Record<string, string>): Promise<number> {
    if (Object.keys(fields).length === 0) throw new RangeError('hset needs at least one field');
    return this.client.hset(this.k(key), fields);
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.k(key));
  }

  async hdel(key: string, ...fields: string[]): Promise<number> {
    if (fields.length === 0) return 0;
    return this.client.hdel(this.k(key), ...new Set(fields));
  }

  async hupdate(
    key: string,
    set: Record<string, string>,
    del: readonly string[] = [],
    options: { replace?: boolean } = {},
  ): Promise<void> {
    assertDisjoint(set, del);
    const setting = Object.keys(set).length > 0;
    // After DEL there is nothing left to delete.
    const fields = options.replace ? [] : [...new Set(del)];
    if (!options.replace && !setting && !fields.length) return;
    const k = this.k(key);
    // Redis rejects an empty HSET or HDEL, hence the guards.
    const tx = this.client.multi();
    if (options.replace) tx.del(k);
    if (setting) tx.hset(k, set);
    for (let i = 0; i < fields.length; i += HDEL_CHUNK) tx.hdel(k, ...fields.slice(i, i + HDEL_CHUNK));
    const results = await tx.exec();
    // null only when a WATCHed key changed; there is none, but never report an unapplied write as done.
    if (!results) throw new Error('hupdate: transaction aborted');
    // EXEC runs every command even when one fails (e.g. WRONGTYPE): report the first error.
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async hincrby(key: string, field: string, delta: string): Promise<string> {
    assertDecimal(delta);
    return (await this.script(HINCR_DECIMAL, [key], [field, delta])) as string;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.k(channel), message);
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    const subscription: MessageHandler = (m, c) => handler(m, c);
    let set = this.channels.get(channel);
    if (!set) {
      const created = new Set<MessageHandler>();
      this.channels.set(channel, (set = created));
      try {
        await this.channelOp(channel, () => this.subscriberConnection().subscribe(this.k(channel)));
      } catch (e) {
        if (created.size === 0 && this.channels.get(channel) === created) this.channels.delete(channel);
        throw e;
      }
    } else {
      await this.channelOps.get(channel);
      // The SUBSCRIBE this subscription waited for failed and its channel was dropped: start over.
      if (this.channels.get(channel) !== set) return this.subscribe(channel, handler);
    }
    set.add(subscription);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      set.delete(subscription);
      if (set.size > 0 || this.channels.get(channel) !== set) return;
      this.channels.delete(channel);
      await this.channelOp(channel, () => this.subscriberConnection().unsubscribe(this.k(channel)));
    };
  }

  async ping(): Promise<boolean> {
    if (this.client.status !== 'ready') return false;
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.channels.clear();
    await Promise.all(
      [this.client, this.subscriber].map(async (c) => {
        if (!c || c.status === 'end') return;
        // QUIT lets pending replies arrive; a connection that is down is just dropped.
        if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
        else c.disconnect();
      }),
    );
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  private subscriberConnection(): Redis {
    if (!this.subscriber) {
      const sub = this.client.duplicate();
      sub.on('error', () => undefined);
      sub.on('message', (channel: string, message: string) => this.dispatch(channel, message));
      this.subscriber = sub;
    }
    return this.subscriber;
  }

  private dispatch(prefixed: string, message: string): void {
    const channel = prefixed.slice(this.prefix.length);
    for (const handler of [...(this.channels.get(channel) ?? [])]) {
      try {
        void Promise.resolve(handler(message, channel)).catch((e) =>
          this.onError(e, `subscriber of ${channel}`),
        );
      } catch (e) {
        this.onError(e, `subscriber of ${channel}`);
      }
    }
  }

  private channelOp(channel: string, op: () => Promise<unknown>): Promise<void> {
    const next = (this.channelOps.get(channel) ?? Promise.resolve()).then(op).then(() => undefined);
    // The chain continues after a failure; the caller still sees it.
    this.channelOps.set(
      channel,
      next.catch(() => undefined),
    );
    return next;
  }

  private async script(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    const sha = sha1(source);
    const prefixed = keys.map((k) => this.k(k));
    try {
      return await this.client.evalsha(sha, prefixed.length, ...prefixed, ...args);
    } catch (e) {
      // First use on this server (or after SCRIPT FLUSH): EVAL loads it.
      if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
      return this.client.eval(source, prefixed.length, ...prefixed, ...args);
    }
  }
}

const shas = new Map<string, string>();
function sha1(source: string): string {
  let sha = shas.get(source);
  if (!sha) shas.set(source, (sha = createHash('sha1').update(source).digest('hex')));
  return sha;
}
