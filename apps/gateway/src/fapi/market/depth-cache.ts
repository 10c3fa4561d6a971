import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { DEPTH_FIELDS, DEPTH_KEY, readDepth } from '@perp/contracts';
import type { Market } from '@perp/domain';
import { LocalAnswers } from '../../markets/local-answers';
import { type SortedDepth, sortDepth } from './depth-view';

/**
 * Sorted books per symbol, reused while the projected book's `seq` is unchanged: a read costs one
 * field lookup in the hot store, and the whole hash is read and sorted only after the book changed.
 * Concurrent reads of a changed book share one load.
 */
@Injectable()
export class DepthCache {
  private readonly books = new Map<string, SortedDepth>();
  private readonly loading = new Map<string, Promise<SortedDepth>>();
  /** In-process store only: per market, the book current at its hash's version (LocalAnswers). */
  private readonly current: LocalAnswers<Market, SortedDepth>;

  constructor(@Inject(HOT_STORE) private readonly hot: HotStore) {
    this.current = new LocalAnswers(hot);
  }

  async book(m: Market): Promise<SortedDepth> {
    const keys = [DEPTH_KEY(m.symbol)];
    const versions = this.current.versions(keys);
    const raw = await this.hot.hget(keys[0]!, DEPTH_FIELDS.seq);
    const seq = raw === undefined ? -1 : Number(raw);
    const cached = this.books.get(m.symbol);
    if (cached && cached.seq === seq) {
      this.current.keep(m, keys, versions, cached);
      return cached;
    }
    let pending = this.loading.get(m.symbol);
    if (!pending) {
      pending = this.load(m).finally(() => this.loading.delete(m.symbol));
      this.loading.set(m.symbol, pending);
    }
    return pending;
  }

  /** The store is in this process (`bookNow` can answer). */
  get local(): boolean {
    return this.current.active;
  }

  /** The sorted book with no read, when its hash is unchanged since `book` last saw it; else undefined. */
  bookNow(m: Market): SortedDepth | undefined {
    return this.current.get(m, 0); // kept with no end time: `now` does not matter
  }

  private async load(m: Market): Promise<SortedDepth> {
    const sorted = sortDepth(m, await readDepth(this.hot, m.symbol));
    const cached = this.books.get(m.symbol);
    // The sequence only grows; a load that raced a newer one must not replace it.
    if (!cached || cached.seq <= sorted.seq) this.books.set(m.symbol, sorted);
    return sorted;
  }
}
