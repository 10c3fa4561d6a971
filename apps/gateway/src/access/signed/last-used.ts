import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { ApiKeyRepository } from '@perp/persistence';
import { ACCESS_OPTIONS, type ApiAccessOptions, DEFAULT_ACCESS_OPTIONS } from '../access-options';

/** Hot-store key holding a key's latest use (ms) until the database has it. */
export const lastUsedKey = (id: string) => `api-key:last-used:${id}`;

// The hot copy is refreshed at most this often per key and replica, and outlives many flushes.
const HOT_REFRESH_MS = 1_000;
const HOT_TTL_MS = 60 * 60_000;

/**
 * last_used_at without a database write per signed request: uses are kept in memory and written
 * with ApiKeyRepository.touchLastUsed every few seconds and on shutdown. Meanwhile the hot store
 * holds each key's latest use (at most one write per second per key and replica), so a key list
 * served by any replica shows it.
 */
@Injectable()
export class LastUsedRecorder implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('ApiKeyLastUsed');
  private pending = new Map<string, number>();
  private readonly hotWrittenAt = new Map<string, number>();
  private readonly flushMs: number;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly apiKeys: ApiKeyRepository,
    @Inject(ACCESS_OPTIONS) options: ApiAccessOptions,
  ) {
    this.flushMs = options.lastUsedFlushMs ?? DEFAULT_ACCESS_OPTIONS.lastUsedFlushMs;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** A successful signed request with key `id`. Never waits, never throws. */
  record(id: string, at: number = Date.now()): void {
    if (at > (this.pending.get(id) ?? 0)) this.pending.set(id, at);
    if (at - (this.hotWrittenAt.get(id) ?? 0) < HOT_REFRESH_MS) return;
    this.hotWrittenAt.set(id, at);
    this.hot
      .set(lastUsedKey(id), String(at), { ttlMs: HOT_TTL_MS })
      .catch((e: unknown) => this.logger.warn(`hot store: ${String(e)}`));
  }

  /** Latest uses not yet in the database, by key id (this replica's and the hot store's). */
  async recent(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const hot = await Promise.all(ids.map((id) => this.hot.get(lastUsedKey(id))));
    ids.forEach((id, i) => {
      const latest = Math.max(this.pending.get(id) ?? 0, Number(hot[i] ?? 0) || 0);
      if (latest > 0) out.set(id, latest);
    });
    return out;
  }

  /** A deleted key: nothing left to write. */
  async forget(id: string): Promise<void> {
    this.pending.delete(id);
    this.hotWrittenAt.delete(id);
    await this.hot.del(lastUsedKey(id));
  }

  /** Writes the pending uses; failed writes are kept for the next flush. Flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const now = Date.now();
    for (const [id, at] of this.hotWrittenAt) if (now - at >= HOT_REFRESH_MS) this.hotWrittenAt.delete(id);
    for (const [id, at] of batch) {
      try {
        await this.apiKeys.touchLastUsed(id, new Date(at));
      } catch (e) {
        if (at > (this.pending.get(id) ?? 0)) this.pending.set(id, at);
        this.logger.warn(`last_used_at of key ${id} not written: ${String(e)}`);
      }
    }
  }
}
