import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type ListenKeyEntity, ListenKeyRepository } from '@perp/persistence';

/** A listen key lives 60 minutes after its creation or last keepalive (as Binance). */
export const LISTEN_KEY_TTL_MS = 60 * 60_000;

/**
 * Hot-store keys of the user data stream's listen keys, for the WebSocket server too:
 * `byUser` holds the user's active listen key, `byKey` the owner's address, `cursor` the place of
 * the last user data event a connection of the key was sent (streams/user-feed.ts). All carry the TTL.
 */
export const LISTEN_KEY_KEYS = {
  byUser: (address: string) => `listen-key:user:${address}`,
  byKey: (listenKey: string) => `listen-key:${listenKey}`,
  cursor: (listenKey: string) => `listen-key:cursor:${listenKey}`,
} as const;

/**
 * Resolves a listen key to its owner's address (what a user-stream connection needs): the hot
 * store, else Postgres, whose copy is then put back in the hot store with the key's resume place
 * (a restarted embedded exchange, a flushed Redis).
 */
export async function listenKeyOwner(
  hot: HotStore,
  keys: ListenKeyRepository,
  listenKey: string,
  now = Date.now(),
): Promise<string | undefined> {
  const owner = await hot.get(LISTEN_KEY_KEYS.byKey(listenKey));
  if (owner !== undefined) return owner;
  const row = await keys.find(listenKey, now);
  if (!row) return undefined;
  await restore(hot, row, now);
  return row.address;
}

/** A key Postgres holds and the hot store lost, back in the hot store for the rest of its life. */
async function restore(hot: HotStore, row: ListenKeyEntity, now: number): Promise<void> {
  const ttlMs = Math.max(1, row.expiresAt - now);
  await hot.set(LISTEN_KEY_KEYS.byKey(row.listenKey), row.address, { ttlMs });
  await hot.setIfAbsent(LISTEN_KEY_KEYS.byUser(row.address), row.listenKey, { ttlMs });
  if (row.cursor !== null)
    await hot.setIfAbsent(LISTEN_KEY_KEYS.cursor(row.listenKey), row.cursor, { ttlMs });
}

/**
 * One listen key per user, in the hot store so every gateway replica (and the streams) see it, and
 * in Postgres so that it outlives the hot store (see listenKeyOwner).
 */
@Injectable()
export class ListenKeys {
  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly keys: ListenKeyRepository,
  ) {}

  /** The user's active key, kept alive, or a new one (64 hex characters). */
  async open(address: string): Promise<string> {
    // A few rounds settle any race with a concurrent POST or an expiry; more would be a store fault.
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.keepAlive(address);
      if (existing !== undefined) return existing;
      const candidate = randomBytes(32).toString('hex');
      if (
        await this.hot.setIfAbsent(LISTEN_KEY_KEYS.byUser(address), candidate, { ttlMs: LISTEN_KEY_TTL_MS })
      ) {
        await this.hot.set(LISTEN_KEY_KEYS.byKey(candidate), address, { ttlMs: LISTEN_KEY_TTL_MS });
        const now = Date.now();
        await this.keys.save(candidate, address, now + LISTEN_KEY_TTL_MS);
        await this.keys.purgeExpired(address, now);
        return candidate;
      }
      // Another request created one meanwhile: loop and return that one.
    }
    throw new Error(`no listen key could be opened for ${address}`);
  }

  /** Extends the active key by another 60 minutes; undefined when there is none (or it just expired). */
  async keepAlive(address: string): Promise<string | undefined> {
    const userKey = LISTEN_KEY_KEYS.byUser(address);
    const listenKey = await this.active(address);
    if (listenKey === undefined || !(await this.hot.expire(userKey, LISTEN_KEY_TTL_MS))) return undefined;
    await this.hot.set(LISTEN_KEY_KEYS.byKey(listenKey), address, { ttlMs: LISTEN_KEY_TTL_MS });
    // A client away longer than an hour, keeping its key alive, still resumes where it left.
    await this.hot.expire(LISTEN_KEY_KEYS.cursor(listenKey), LISTEN_KEY_TTL_MS);
    await this.keys.extend(listenKey, Date.now() + LISTEN_KEY_TTL_MS);
    return listenKey;
  }

  /** The user's active key: the hot store's, else the one Postgres holds (put back in the hot store). */
  async active(address: string): Promise<string | undefined> {
    const listenKey = await this.hot.get(LISTEN_KEY_KEYS.byUser(address));
    if (listenKey !== undefined) return listenKey;
    const now = Date.now();
    const row = await this.keys.activeOf(address, now);
    if (!row) return undefined;
    await restore(this.hot, row, now);
    return this.hot.get(LISTEN_KEY_KEYS.byUser(address));
  }

  async close(address: string, listenKey: string): Promise<void> {
    await this.hot.del(
      LISTEN_KEY_KEYS.byUser(address),
      LISTEN_KEY_KEYS.byKey(listenKey),
      LISTEN_KEY_KEYS.cursor(listenKey),
    );
    await this.keys.remove(listenKey);
  }
}
