import type { Subscription } from './bus';

/**
 * Group joins a module starts in `onModuleInit` and waits for in `onApplicationBootstrap`: every
 * module's `onModuleInit` runs before any `onApplicationBootstrap`, so the application's groups join
 * at the same time instead of one after another (each new group waits out the broker's initial
 * rebalance delay, 3 s by default and on the mock).
 */
export class Joining {
  private pending?: Promise<Subscription[]>;

  /** Starts the joins (each a `bus.subscribe(...)` already called). */
  start(joins: readonly Promise<Subscription>[]): void {
    this.pending = joinTogether(joins);
    // Awaited by `joined()`; until then a failure must not count as unhandled.
    this.pending.catch(() => undefined);
  }

  /** The subscriptions, once every join has its first assignment; the first failure otherwise. */
  joined(): Promise<Subscription[]> {
    if (!this.pending) return Promise.reject(new Error('no join was started (onModuleInit not run)'));
    return this.pending;
  }
}

/** Waits for every join; if one fails, closes the ones that joined and rethrows the failure. */
export async function joinTogether(joins: readonly Promise<Subscription>[]): Promise<Subscription[]> {
  const settled = await Promise.allSettled(joins);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<Subscription>).value);
  await Promise.all(
    settled.map((s) => (s.status === 'fulfilled' ? s.value.close().catch(() => undefined) : undefined)),
  );
  throw failed.reason;
}
