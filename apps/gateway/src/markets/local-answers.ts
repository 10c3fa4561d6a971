import type { HotStore } from '@perp/cache';

interface Kept {
  keys: readonly string[];
  versions: readonly number[];
  body: Buffer;
  /** Local time (ms) from which the body is no longer the answer, whatever the store holds. */
  until: number;
}

/** Where answers are kept: a Map by name, or a WeakMap by a request's parsed-query object. */
interface Shelf<K> {
  get(id: K): Kept | undefined;
  set(id: K, kept: Kept): unknown;
}

/** Answers kept by name at most; past it the shelf is emptied (names are client-chosen). */
const MAX_KEPT = 10_000;

/**
 * Answer bodies of public market reads kept beside the versions of the hot-store keys they were
 * made from (HotStore.localVersion), and given again while every one of those versions is
 * unchanged and `until` has not come: no read, no await, no serialization. Only a store in this
 * process has versions (the embedded exchange); with Redis nothing is kept and every request
 * reads as before.
 *
 * A reader takes the versions before it reads the values, so what it keeps was made from the
 * values at those versions or later: a write between the two makes the next request read again,
 * never keeps an older answer under a newer version.
 */
export class LocalAnswers<K> {
  constructor(
    private readonly hot: HotStore,
    private readonly shelf: Shelf<K> = new Map<K, Kept>(),
  ) {}

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

  /** The body kept for `id` if it is still the answer at `now`. */
  get(id: K, now: number): Buffer | undefined {
    if (this.hot.localVersion === undefined) return undefined;
    const kept = this.shelf.get(id);
    if (kept === undefined || now >= kept.until) return undefined;
    for (let i = 0; i < kept.keys.length; i++)
      if (this.hot.localVersion(kept.keys[i]!) !== kept.versions[i]) return undefined;
    return kept.body;
  }

  /**
   * Keeps the answer for `id` while `keys` stay at `versions` (taken before the reads). `body` is
   * made only when kept: not without versions, nor when the one kept is already of these versions.
   */
  keep(
    id: K,
    keys: readonly string[],
    versions: readonly number[] | undefined,
    body: Buffer | (() => Buffer),
    until = Infinity,
  ): void {
    if (versions === undefined) return;
    const kept = this.shelf.get(id);
    if (kept !== undefined && kept.until === until && sameVersions(kept.versions, versions)) return;
    if (this.shelf instanceof Map && this.shelf.size >= MAX_KEPT) this.shelf.clear();
    this.shelf.set(id, { keys, versions, body: typeof body === 'function' ? body() : body, until });
  }
}

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
