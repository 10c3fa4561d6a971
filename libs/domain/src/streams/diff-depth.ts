import { DepthBook, type DepthLevel, type DepthSnapshot } from '../market-data/depth-book';

/** One engine book delta as the diff stream sees it (Binance U, u, pu). */
export interface BookDelta {
  /** Binance U: the sequence of the command's first event. */
  firstSeq: number;
  /** Binance u: the book's sequence after the command (REST depth's lastUpdateId). */
  seq: number;
  /** Binance pu: `seq` of the previous delta of the symbol. */
  prevSeq: number;
  bids: readonly DepthLevel[];
  asks: readonly DepthLevel[];
}

/** A diff-depth event's figures: deltas of one update window merged. */
export interface MergedDelta {
  U: number;
  u: number;
  pu: number;
  b: DepthLevel[];
  a: DepthLevel[];
}

/**
 * The deltas of one symbol within an update window (@100ms, @250ms, @500ms) merged into one event:
 * U of the first, u of the last, pu of the first (the u of the previous event), every changed level
 * once with its latest quantity. Chained windows keep pu = previous u, so a client that applies
 * them follows Binance's procedure unchanged.
 */
export class DeltaWindow {
  private first: BookDelta | undefined;
  private last: BookDelta | undefined;
  private readonly bids = new Map<string, string>();
  private readonly asks = new Map<string, string>();

  get empty(): boolean {
    return this.first === undefined;
  }

  add(d: BookDelta): void {
    if (this.last && d.seq <= this.last.seq) return; // a redelivered delta
    this.first ??= d;
    this.last = d;
    for (const [p, q] of d.bids) this.bids.set(p, q);
    for (const [p, q] of d.asks) this.asks.set(p, q);
  }

  /** The merged event, and an empty window for the next one; undefined when nothing was added. */
  take(): MergedDelta | undefined {
    const { first, last } = this;
    if (!first || !last) return undefined;
    const merged = {
      U: first.firstSeq,
      u: last.seq,
      pu: first.prevSeq,
      b: [...this.bids],
      a: [...this.asks],
    };
    this.first = this.last = undefined;
    this.bids.clear();
    this.asks.clear();
    return merged;
  }
}

/** What a local book did with one diff event. */
export type SyncStep = 'buffered' | 'dropped' | 'applied' | 'gap';

/**
 * Binance's documented way to keep a local book: buffer the stream, take a REST snapshot, drop
 * events with u < lastUpdateId, the first applied must have U <= lastUpdateId <= u, and each later
 * pu must equal the previous u (else a gap: start over). What a client does; the tests use it.
 */
export class LocalBook {
  private book: DepthBook | undefined;
  private readonly pending: MergedDelta[] = [];
  private lastU: number | undefined;

  /** Feed every diff event as it arrives. */
  onEvent(e: MergedDelta): SyncStep {
    if (!this.book) {
      this.pending.push(e);
      return 'buffered';
    }
    return this.apply(e);
  }

  /** The REST snapshot; applies what was buffered. False when a gap showed (start over). */
  onSnapshot(s: DepthSnapshot): boolean {
    this.book = DepthBook.fromJSON(s);
    this.lastU = undefined;
    const buffered = this.pending.splice(0);
    return buffered.every((e) => this.apply(e) !== 'gap');
  }

  get synced(): boolean {
    return this.book !== undefined;
  }

  top(limit = Infinity): DepthSnapshot {
    if (!this.book) throw new Error('no snapshot yet');
    return this.book.top(limit);
  }

  private apply(e: MergedDelta): SyncStep {
    const book = this.book!;
    if (e.u < book.lastUpdateId) return 'dropped';
    // The first event holds the snapshot's point (U <= lastUpdateId <= u) or follows it (pu = lastUpdateId).
    const chained =
      this.lastU === undefined ? e.U <= book.lastUpdateId || e.pu === book.lastUpdateId : e.pu === this.lastU;
    if (!chained) return 'gap';
    // u = lastUpdateId: already in the snapshot (DepthBook ignores it), but it starts the chain.
    book.apply({ seq: e.u, bids: e.b, asks: e.a });
    this.lastU = e.u;
    return 'applied';
  }
}
