import { Logger } from '@nestjs/common';
import { Money } from '@perp/domain';
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
  wrongType,
} from './hot-store';

/** `v`: the store's write count when the entry was last changed (HotStore.localVersion). */
type Entry =
  | { kind: 'string'; value: string; expiresAt?: number; v: number }
  | { kind: 'hash'; value: Map<string, string>; expiresAt?: number; v: number };

export interface MemoryHotStoreOptions {
  /** How often expired keys are swept (they are also dropped when touched). Default 10 s. */
  sweepIntervalMs?: number;
  onError?: ErrorReporter;
  /** Clock, for tests. */
  now?: () => number;
}

/** The hot store of the embedded exchange: one process, nothing shared, nothing persisted. */
export class MemoryHotStore implements HotStore {
  private readonly entries = new Map<string, Entry>();
  private readonly channels = new Map<string, Set<MessageHandler>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly onError: ErrorReporter;
  private closed = false;
  /** Writes so far: each changed entry takes the next number as its version. */
  private writes = 0;

  constructor(options: MemoryHotStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    const logger = new Logger('MemoryHotStore');
    this.onError = options.onError ?? ((e, context) => logger.error(`${context}: ${String(e)}`));
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 10_000);
    this.sweeper.unref();
  }

  /** Number of live keys (tests, metrics). */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    return this.stringEntry(key)?.value;
  }

  async set(key: string, value: string, options: { ttlMs?: number } = {}): Promise<void> {
    if (options.ttlMs !== undefined) assertTtl(options.ttlMs);
    this.entries.set(key, { kind: 'string', value, expiresAt: this.expiry(options.ttlMs), v: ++this.writes });
  }

  async setMany(entries: readonly HotEntry[]): Promise<void> {
    for (const e of entries) if (e.ttlMs !== undefined) assertTtl(e.ttlMs);
    for (const e of entries)
      this.entries.set(e.key, {
        kind: 'string',
        value: e.value,
        expiresAt: this.expiry(e.ttlMs),
        v: ++this.writes,
      });
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs?: number } = {}): Promise<boolean> {
    if (options.ttlMs !== undefined) assertTtl(options.ttlMs);
    if (this.entry(key)) return false;
    this.entries.set(key, { kind: 'string', value, expiresAt: this.expiry(options.ttlMs), v: ++this.writes });
    return true;
  }

  async del(...keys: string[]): Promise<number> {
    let n = 0;
    for (const key of new Set(keys)) if (this.entry(key) && this.entries.delete(key)) n++;
    return n;
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    const entry = this.entry(key);
    if (!entry) return false;
    entry.expiresAt = this.expiry(ttlMs);
    return true;
  }

  async incrWindow(key: string, amount: number, windowMs: number): Promise<WindowCount> {
    assertAmount(amount);
    assertTtl(windowMs, 'windowMs');
    const entry = this.stringEntry(key);
    if (amount === 0) {
      if (!entry) return { count: 0, resetInMs: windowMs };
      return { count: integer(entry.value), resetInMs: this.remaining(entry) ?? windowMs };
    }
    if (!entry) {
      this.entries.set(key, {
        kind: 'string',
        value: String(amount),
        expiresAt: this.expiry(windowMs),
        v: ++this.writes,
      });
      return { count: amount, resetInMs: windowMs };
    }
    const count = integer(entry.value) + amount;
    entry.value = String(count);
    entry.v = ++this.writes;
    entry.expiresAt ??= this.expiry(windowMs);
    return { count, resetInMs: this.remaining(entry) ?? windowMs };
  }

  async hget(key: string, field: string): Promise<string | undefined> {
    return this.hashEntry(key)?.value.get(field);
  }

  async hset(key: string, fields: Record<string, string>): Promise<number> {
    const names = Object.keys(fields);
    if (names.length === 0) throw new RangeError('hset needs at least one field');
    const entry = this.hashEntry(key, true)!;
    const hash = entry.value;
    entry.v = ++this.writes;
    let added = 0;
    for (const name of names) {
      if (!hash.has(name)) added++;
      hash.set(name, fields[name]);
    }
    return added;
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.hashEntry(key)?.value ?? []);
  }

  async hdel(key: string, ...fields: string[]): Promise<number> {
    const entry = this.hashEntry(key);
    if (!entry) return 0;
    let n = 0;
    for (const field of new Set(fields)) if (entry.value.delete(field)) n++;
    if (n > 0) entry.v = ++this.writes;
    if (entry.value.size === 0) this.entries.delete(key);
    return n;
  }

  async hupdate(
    key: string,
    set: Record<string, string>,
    del: readonly string[] = [],
    options: { replace?: boolean } = {},
  ): Promise<void> {
    assertDisjoint(set, del);
    const names = Object.keys(set);
    if (options.replace) {
      // Like Redis DEL: the old key goes whatever its kind, and its TTL with it.
      this.entries.delete(key);
      if (names.length)
        this.entries.set(key, {
          kind: 'hash',
          value: new Map(names.map((n) => [n, set[n]])),
          v: ++this.writes,
        });
      return;
    }
    if (!names.length && !del.length) return;
    // Resolved before any write, so a wrong-type key rejects with nothing changed.
    const entry = this.hashEntry(key, names.length > 0);
    if (!entry) return;
    entry.v = ++this.writes;
    for (const name of names) entry.value.set(name, set[name]);
    for (const field of del) entry.value.delete(field);
    if (entry.value.size === 0) this.entries.delete(key);
  }

  async hincrby(key: string, field: string, delta: string): Promise<string> {
    assertDecimal(delta);
    const current = this.hashEntry(key)?.value.get(field) ?? '0';
    assertDecimal(current, 'hash value');
    const sum = new Money(current).plus(delta).toFixed();
    const entry = this.hashEntry(key, true)!;
    entry.value.set(field, sum);
    entry.v = ++this.writes;
    return sum;
  }

  async publish(channel: string, message: string): Promise<void> {
    for (const handler of [...(this.channels.get(channel) ?? [])]) {
      // A microtask per message keeps publication order and never runs a handler inside publish.
      queueMicrotask(() => {
        if (!this.channels.get(channel)?.has(handler)) return;
        try {
          void Promise.resolve(handler(message, channel)).catch((e) =>
            this.onError(e, `subscriber of ${channel}`),
          );
        } catch (e) {
          this.onError(e, `subscriber of ${channel}`);
        }
      });
    }
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    if (this.closed) throw new Error('store is closed');
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    // A wrapper per subscription, so the same function can be subscribed twice and removed once.
    const subscription: MessageHandler = (m, c) => handler(m, c);
    set.add(subscription);
    return async () => {
      set.delete(subscription);
      if (set.size === 0 && this.channels.get(channel) === set) this.channels.delete(channel);
    };
  }

  localVersion(key: string): number {
    return this.entry(key)?.v ?? 0;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.channels.clear();
    this.entries.clear();
  }

  private expiry(ttlMs: number | undefined): number | undefined {
    return ttlMs === undefined ? undefined : this.now() + ttlMs;
  }

  private remaining(entry: Entry): number | undefined {
    return entry.expiresAt === undefined ? undefined : Math.max(1, entry.expiresAt - this.now());
  }

  private entry(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private stringEntry(key: string): Extract<Entry, { kind: 'string' }> | undefined {
    const entry = this.entry(key);
    if (entry && entry.kind !== 'string') throw wrongType();
    return entry;
  }

  private hashEntry(key: string, create = false): Extract<Entry, { kind: 'hash' }> | undefined {
    const entry = this.entry(key);
    if (entry && entry.kind !== 'hash') throw wrongType();
    if (entry || !create) return entry;
    const created: Entry = { kind: 'hash', value: new Map(), v: ++this.writes };
    this.entries.set(key, created);
    return created;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.entries.delete(key);
  }
}

function integer(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new Error('ERR value is not an integer or out of range');
  return n;
}
