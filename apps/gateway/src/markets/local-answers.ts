import type { HotStore } from '@perp/cache';

/**
 * Larger bodies are not kept: a body is kept per distinct query (up to a lane's 1,000), so a
 * client choosing many 1,500-row klines windows would otherwise hold ~200 MB. Those reads are
 * heavy in weight, and KlineReader still shares one body per KLINE_CACHE_MS.
 */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

interface Kept<V> {
  keys: readonly string[];
  versions: readonly number[];
  value: V;
  /** Local time (ms) from which the value is no longer the answer, whatever the store holds. */
  until: number;
}

/**
 * What public market reads made from the hot store (answer bodies, a sorted book), kept per
 * object (a market, a request's parsed query; dropped with it) beside the versions of the keys it
 * was made from (HotStore.localVersion), and given again while every one of those versions is
 * unchanged and `until` has not come: no read, no await, no serialization. Only a store in this
 * process has versions (the embedded exchange); with Redis nothing is kept and every request
 * reads as before.
 *
 * A reader takes the versions before it reads the values, so what it keeps was made from the
 * values at those versions or later: a write between the two makes the next request read again,
 * never keeps an older answer under a newer version.
 */
export class LocalAnswers<K extends object, V = Buffer> {
  private readonly shelf = new WeakMap<K, Kept<V>>();

  constructor(private readonly hot: HotStore) {}

  /** False with a store that has no versions: nothing is ever kept. */
  get active(): boolean {
    return this.hot.localVersion !== undefined;
  }

  /** The keys' versions now; undefined when the store has none (`keep` then keeps nothing). */
  versions(keys: readonly string[]): number[] | undefined {
    const hot = this.hot;
    if (hot.localVersion === undefined) return undefined;
    return keys.map((k) => hot.localVersion!(k));
  }

  /** The value kept for `id` if it is still the answer at `now`. */
  get(id: K, now: number): V | undefined {
    if (this.hot.localVersion === undefined) return undefined;
    const kept = this.shelf.get(id);
    if (kept === undefined) return undefined;
    let current = now < kept.until;
    for (let i = 0; current && i < kept.keys.length; i++)
      current = this.hot.localVersion(kept.keys[i]!) === kept.versions[i];
    if (current) return kept.value;
    // No longer the answer: not held until the query's next request or its eviction.
    this.shelf.delete(id);
    return undefined;
  }

  /**
   * Keeps the answer for `id` while `keys` stay at `versions` (taken before the reads), unless it is
   * a body over MAX_KEPT_BODY_BYTES. A function `value` is called only when kept: not without
   * versions, nor when the one kept is already of these versions.
   */
  keep(
    id: K,
    keys: readonly string[],
    versions: readonly number[] | undefined,
    value: V | (() => V),
    until = Infinity,
  ): void {
    if (versions === undefined) return;
    const kept = this.shelf.get(id);
    if (kept !== undefined && kept.until === until && sameVersions(kept.versions, versions)) return;
    const made = typeof value === 'function' ? (value as () => V)() : value;
    if (Buffer.isBuffer(made) && made.length > MAX_KEPT_BODY_BYTES) this.shelf.delete(id);
    else this.shelf.set(id, { keys, versions, value: made, until });
  }
}

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
