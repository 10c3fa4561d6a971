/**
 * The hot-state port: live state projected for fast reads (open orders, balances, positions, book
 * tops), rate-limit counters and fan-out between processes. Memory adapter in the embedded
 * exchange, Redis in a cluster; both pass the same conformance suite (hot-store.conformance.ts).
 *
 * Semantics shared by every adapter:
 * - Keys, fields, values, channels and messages are strings. A key holds either a string value
 *   (get/set/setIfAbsent/incrWindow) or a hash (h*); using it as the other kind rejects with an
 *   error whose message starts with `WRONGTYPE`.
 * - TTLs are milliseconds, positive integers. A key past its TTL no longer exists for any
 *   operation. `set` replaces the value and the TTL (no ttlMs = no expiry); hash writes keep the
 *   key's TTL. A hash whose last field is deleted no longer exists.
 * - Every operation is atomic with respect to every other one on the same key.
 * - Adapters may prefix keys and channels (per deployment); callers never see the prefix.
 */
export interface HotStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  /**
   * Sets several keys in one round trip (Redis: one pipeline), in order, so a later entry of the same
   * key wins. Not atomic across keys: for a stage's writes of one turn.
   */
  setMany(entries: readonly HotEntry[]): Promise<void>;
  /** Sets only when the key does not exist (a lock, a dedup marker); true when it was set. */
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  /** Deletes keys of any kind; returns how many existed. */
  del(...keys: string[]): Promise<number>;
  /** Sets the TTL of an existing key; false when it does not exist. */
  expire(key: string, ttlMs: number): Promise<boolean>;

  /**
   * Fixed-window counter for rate limits: adds `amount` (a non-negative integer) to the count of
   * the current window of `key` and returns the new count and the milliseconds until the window
   * ends. A window starts at the first increment after the previous one ended and lasts `windowMs`
   * (it does not slide; later increments do not extend it). `amount` 0 reads without starting a
   * window: `{ count: 0, resetInMs: windowMs }` when none is running. The counter is a string key:
   * `get` reads it, `del` resets it.
   */
  incrWindow(key: string, amount: number, windowMs: number): Promise<WindowCount>;

  hget(key: string, field: string): Promise<string | undefined>;
  /** Sets fields (others untouched); returns how many were new. */
  hset(key: string, fields: Record<string, string>): Promise<number>;
  /** Every field; `{}` when the key does not exist. */
  hgetall(key: string): Promise<Record<string, string>>;
  /** Deletes fields; returns how many existed. */
  hdel(key: string, ...fields: string[]): Promise<number>;
  /**
   * Sets `set` and deletes `del` on one hash in one step: a reader sees the hash before or after,
   * never in between. A field in both `set` and `del` is a caller bug: rejects with a RangeError
   * before anything is written. `replace`: the key is deleted first, whatever it held, so it ends
   * holding exactly `set` with no TTL (an empty `set` deletes the key). Without `replace`, like
   * `hset` + `hdel`: the TTL is kept and a hash left with no field no longer exists.
   */
  hupdate(
    key: string,
    set: Record<string, string>,
    del?: readonly string[],
    options?: { replace?: boolean },
  ): Promise<void>;
  /**
   * Adds the decimal `delta` to the field (missing = "0") exactly, with no float rounding, and
   * returns the result in canonical form: plain notation, no leading zeros, no trailing fraction
   * zeros, no "+", "0" for zero ("1.50" + "0" = "1.5"). A field that is not a decimal rejects.
   */
  hincrby(key: string, field: string, delta: string): Promise<string>;

  /**
   * Sends `message` to the channel's subscribers, at most once each: there is no history and no
   * redelivery (a subscriber that is disconnected misses it). Subscribers of one process receive
   * the messages of one publisher in publication order.
   */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Delivers every message published on `channel` after the returned promise resolves, until the
   * returned function is called (and its promise resolves). Handlers run asynchronously, never
   * inside `publish`; a handler that throws or rejects is reported and does not affect others.
   */
  subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe>;

  /**
   * Stores held in this process only (MemoryHotStore; Redis has none): a number that changes
   * whenever `key` is written, deleted or expires, read synchronously; 0 while the key does not
   * exist. A reader keeps what it made of a value beside the version it read it at, and reuses it
   * while the version is the same, with no read and no await.
   */
  localVersion?(key: string): number;

  /** True when the store answers (readiness). */
  ping(): Promise<boolean>;
  /** Releases connections and timers; the store is unusable afterwards. */
  close(): Promise<void>;
}

export interface HotEntry {
  key: string;
  value: string;
  ttlMs?: number;
}

export interface WindowCount {
  count: number;
  resetInMs: number;
}

export type MessageHandler = (message: string, channel: string) => void | Promise<void>;
export type Unsubscribe = () => Promise<void>;

/** Where handler failures go (default: the Nest logger of the adapter). */
export type ErrorReporter = (error: unknown, context: string) => void;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

export function assertTtl(ttlMs: number, name = 'ttlMs'): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`${name} must be a positive integer: ${ttlMs}`);
}

export function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new RangeError(`amount must be a non-negative integer: ${amount}`);
}

export function assertDecimal(value: string, name = 'delta'): void {
  if (typeof value !== 'string' || !DECIMAL.test(value))
    throw new TypeError(`${name} is not a decimal string: ${value}`);
}

/** hupdate's `set` and `del` must not share a field (which should win is the caller's call). */
export function assertDisjoint(set: Record<string, string>, del: readonly string[]): void {
  for (const field of del)
    if (Object.prototype.hasOwnProperty.call(set, field))
      throw new RangeError(`field both set and deleted: ${field}`);
}

export function wrongType(): Error {
  return new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
}
