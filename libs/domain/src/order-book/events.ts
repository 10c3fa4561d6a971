import { growF64, growU8 } from './typed-arrays';
import {
  BookEventFlag,
  BookEventKind,
  BookMarketState,
  bookReasonName,
  type BookRejectReason,
  BookSide,
} from './types';

// Module-local copies: an imported binding compiles to a getter call on the module object.
const FILL = BookEventKind.FILL;
const MARKET_STATE = BookEventKind.MARKET_STATE;

const KIND_NAMES = [
  '',
  'ACCEPTED',
  'REJECTED',
  'FILL',
  'CANCELED',
  'EXPIRED',
  'AMENDED',
  'CANCEL_REJECTED',
  'AMEND_REJECTED',
  'MARKET_STATE',
] as const;
const STATE_NAMES = ['TRADING', 'HALT', 'CLOSE'] as const;

export interface BookFillSide {
  orderId: number;
  user: number;
  side: BookSide;
  /** Part of the fill that reduced an opposite position, and the part that opened or grew one. */
  close: number;
  open: number;
  /** Quantity of the order still open after this fill. */
  leaves: number;
}

/** One event as a plain object: for tests, logs and the shard's conversion to Kafka messages. */
export type BookEvent =
  | {
      kind: 'ACCEPTED';
      seq: number;
      orderId: number;
      user: number;
      side: BookSide;
      price: number;
      qty: number;
      capped: boolean;
    }
  | {
      kind: 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED';
      seq: number;
      orderId: number;
      user: number;
      side: BookSide;
      price: number;
      qty: number;
      reason: BookRejectReason;
    }
  | { kind: 'FILL'; seq: number; price: number; qty: number; taker: BookFillSide; maker: BookFillSide }
  | {
      kind: 'CANCELED' | 'EXPIRED';
      seq: number;
      orderId: number;
      user: number;
      side: BookSide;
      price: number;
      /** Quantity that was still open and is now gone. */
      qty: number;
      reason: string;
    }
  | {
      kind: 'AMENDED';
      seq: number;
      orderId: number;
      user: number;
      side: BookSide;
      price: number;
      qty: number;
      keptPriority: boolean;
      reason: string;
    }
  | { kind: 'MARKET_STATE'; seq: number; state: 'TRADING' | 'HALT' | 'CLOSE' };

/**
 * The events of the last command, column by column (struct of arrays): the book writes numbers into
 * preallocated typed arrays, so emitting allocates nothing once the buffer has grown to the largest
 * command seen. Row i of every column belongs to event i; `count` rows are valid.
 *
 * Columns by kind: every event has `kind` and `seq`. Order events use orderId, user, side, price,
 * qty, reason, flags. FILL uses the order columns for the taker (`leaves` = taker's open quantity
 * after the fill) and the maker* columns for the maker (maker side = opposite of `side`).
 * MARKET_STATE keeps the new state in `flags`.
 */
export class BookEventBuffer {
  count = 0;
  private cap: number;
  kind: Uint8Array;
  reason: Uint8Array;
  side: Uint8Array;
  flags: Uint8Array;
  seq: Float64Array;
  orderId: Float64Array;
  user: Float64Array;
  price: Float64Array;
  qty: Float64Array;
  leaves: Float64Array;
  makerOrderId: Float64Array;
  makerUser: Float64Array;
  makerLeaves: Float64Array;
  takerOpen: Float64Array;
  takerClose: Float64Array;
  makerOpen: Float64Array;
  makerClose: Float64Array;

  constructor(capacity = 64) {
    this.cap = capacity;
    this.kind = new Uint8Array(capacity);
    this.reason = new Uint8Array(capacity);
    this.side = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.seq = new Float64Array(capacity);
    this.orderId = new Float64Array(capacity);
    this.user = new Float64Array(capacity);
    this.price = new Float64Array(capacity);
    this.qty = new Float64Array(capacity);
    this.leaves = new Float64Array(capacity);
    this.makerOrderId = new Float64Array(capacity);
    this.makerUser = new Float64Array(capacity);
    this.makerLeaves = new Float64Array(capacity);
    this.takerOpen = new Float64Array(capacity);
    this.takerClose = new Float64Array(capacity);
    this.makerOpen = new Float64Array(capacity);
    this.makerClose = new Float64Array(capacity);
  }

  clear(): void {
    this.count = 0;
  }

  /** An event about one order (everything but FILL and MARKET_STATE). */
  order(
    kind: number,
    seq: number,
    reason: number,
    flags: number,
    orderId: number,
    user: number,
    side: number,
    price: number,
    qty: number,
    leaves: number,
  ): void {
    const i = this.count;
    if (i === this.cap) this.grow();
    this.kind[i] = kind;
    this.seq[i] = seq;
    this.reason[i] = reason;
    this.flags[i] = flags;
    this.orderId[i] = orderId;
    this.user[i] = user;
    this.side[i] = side;
    this.price[i] = price;
    this.qty[i] = qty;
    this.leaves[i] = leaves;
    this.count = i + 1;
  }

  fill(
    seq: number,
    takerId: number,
    takerUser: number,
    takerSide: number,
    price: number,
    qty: number,
    takerLeaves: number,
    makerId: number,
    makerUser: number,
    makerLeaves: number,
    takerOpen: number,
    takerClose: number,
    makerOpen: number,
    makerClose: number,
  ): void {
    const i = this.count;
    if (i === this.cap) this.grow();
    this.kind[i] = FILL;
    this.seq[i] = seq;
    this.reason[i] = 0;
    this.flags[i] = 0;
    this.orderId[i] = takerId;
    this.user[i] = takerUser;
    this.side[i] = takerSide;
    this.price[i] = price;
    this.qty[i] = qty;
    this.leaves[i] = takerLeaves;
    this.makerOrderId[i] = makerId;
    this.makerUser[i] = makerUser;
    this.makerLeaves[i] = makerLeaves;
    this.takerOpen[i] = takerOpen;
    this.takerClose[i] = takerClose;
    this.makerOpen[i] = makerOpen;
    this.makerClose[i] = makerClose;
    this.count = i + 1;
  }

  marketState(seq: number, state: BookMarketState): void {
    const i = this.count;
    if (i === this.cap) this.grow();
    this.kind[i] = MARKET_STATE;
    this.seq[i] = seq;
    this.reason[i] = 0;
    this.flags[i] = state;
    this.count = i + 1;
  }

  /** Event i as an object (allocates: not for the hot path). */
  get(i: number): BookEvent {
    if (i < 0 || i >= this.count) throw new RangeError(`event ${i} of ${this.count}`);
    const kind = this.kind[i];
    const seq = this.seq[i];
    const side = this.side[i] as BookSide;
    switch (kind) {
      case BookEventKind.FILL:
        return {
          kind: 'FILL',
          seq,
          price: this.price[i],
          qty: this.qty[i],
          taker: {
            orderId: this.orderId[i],
            user: this.user[i],
            side,
            close: this.takerClose[i],
            open: this.takerOpen[i],
            leaves: this.leaves[i],
          },
          maker: {
            orderId: this.makerOrderId[i],
            user: this.makerUser[i],
            side: (side ^ 1) as BookSide,
            close: this.makerClose[i],
            open: this.makerOpen[i],
            leaves: this.makerLeaves[i],
          },
        };
      case BookEventKind.MARKET_STATE:
        return { kind: 'MARKET_STATE', seq, state: STATE_NAMES[this.flags[i]] };
      case BookEventKind.ACCEPTED:
        return {
          kind: 'ACCEPTED',
          seq,
          orderId: this.orderId[i],
          user: this.user[i],
          side,
          price: this.price[i],
          qty: this.qty[i],
          capped: (this.flags[i] & BookEventFlag.CAPPED) !== 0,
        };
      case BookEventKind.REJECTED:
      case BookEventKind.CANCEL_REJECTED:
      case BookEventKind.AMEND_REJECTED:
        return {
          kind: KIND_NAMES[kind] as 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED',
          seq,
          orderId: this.orderId[i],
          user: this.user[i],
          side,
          price: this.price[i],
          qty: this.qty[i],
          // The book writes only rejection reasons on these kinds.
          reason: bookReasonName(this.reason[i]) as BookRejectReason,
        };
      case BookEventKind.AMENDED:
        return {
          kind: 'AMENDED',
          seq,
          orderId: this.orderId[i],
          user: this.user[i],
          side,
          price: this.price[i],
          qty: this.qty[i],
          keptPriority: (this.flags[i] & BookEventFlag.KEPT_PRIORITY) !== 0,
          reason: bookReasonName(this.reason[i]),
        };
      default:
        return {
          kind: KIND_NAMES[kind] as 'CANCELED' | 'EXPIRED',
          seq,
          orderId: this.orderId[i],
          user: this.user[i],
          side,
          price: this.price[i],
          qty: this.qty[i],
          reason: bookReasonName(this.reason[i]),
        };
    }
  }

  toArray(): BookEvent[] {
    const out: BookEvent[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.get(i));
    return out;
  }

  private grow(): void {
    const cap = this.cap * 2;
    this.kind = growU8(this.kind, cap);
    this.reason = growU8(this.reason, cap);
    this.side = growU8(this.side, cap);
    this.flags = growU8(this.flags, cap);
    this.seq = growF64(this.seq, cap);
    this.orderId = growF64(this.orderId, cap);
    this.user = growF64(this.user, cap);
    this.price = growF64(this.price, cap);
    this.qty = growF64(this.qty, cap);
    this.leaves = growF64(this.leaves, cap);
    this.makerOrderId = growF64(this.makerOrderId, cap);
    this.makerUser = growF64(this.makerUser, cap);
    this.makerLeaves = growF64(this.makerLeaves, cap);
    this.takerOpen = growF64(this.takerOpen, cap);
    this.takerClose = growF64(this.takerClose, cap);
    this.makerOpen = growF64(this.makerOpen, cap);
    this.makerClose = growF64(this.makerClose, cap);
    this.cap = cap;
  }
}
