/** Tunables of {@link ApiAccessModule}; the defaults suit production, tests shorten them. */
export interface ApiAccessOptions {
  /** How often last_used_at is written to the database (also on shutdown). Default 5 s. */
  lastUsedFlushMs?: number;
  /** Lifetime of a key record in the hot store; a safety net, writers update it. Default 5 min. */
  recordTtlMs?: number;
  /** Decrypted secrets kept in this process's memory (LRU). Default 10 000. */
  secretCacheSize?: number;
}

export const ACCESS_OPTIONS = Symbol('ACCESS_OPTIONS');

export const DEFAULT_ACCESS_OPTIONS: Required<ApiAccessOptions> = {
  lastUsedFlushMs: 5_000,
  recordTtlMs: 5 * 60_000,
  secretCacheSize: 10_000,
};

/** The parsed TRUSTED_PROXIES (an IpList): whose X-Forwarded-For is believed. */
export const TRUSTED_PROXY_LIST = Symbol('TRUSTED_PROXY_LIST');
