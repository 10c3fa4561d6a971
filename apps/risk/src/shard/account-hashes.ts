import {
  ACCOUNT_FIELDS,
  type AccountHead,
  type AccountOrderEntry,
  accountOrderField,
  HOT_KEYS,
  type OrderRecord,
} from '@perp/contracts';
import { type Account, type AccountOrder, type Money, orderToState } from '@perp/domain';

/** One account's hash write (`HotStore.hupdate`). */
export interface AccountHashWrite {
  key: string;
  set: Record<string, string>;
  del: string[];
  /** The hash as this state last wrote it is unknown: written whole. */
  replace: boolean;
}

/** What an order's field was written from: identities, compared on the next write. */
interface Written {
  order?: AccountOrder;
  remaining?: Money;
  frozen?: Money;
  record?: OrderRecord;
  /** The write that last saw the order open, and the one that last saw its record. */
  orderSeen: number;
  recordSeen: number;
  /** The write that found it changed. */
  changed: number;
}

/**
 * A partition's account projections as `HOT_KEYS.account` hashes, written as they change: a changed
 * account's head every time (balances, positions: small), an open order's field only when the order
 * or its record changed since this state last wrote it, a delete for an order gone. Changes are
 * told by identity, not by a JSON: a record is replaced when it changes, and a fill replaces a
 * domain order's `remaining` and `frozen`, its only fields that change. An account this state has
 * not written yet (a partition just loaded) is written whole, replacing the hash. What is kept per
 * order is updated in place: per order, a write allocates only for what changed.
 */
export class AccountHashes {
  private readonly written = new Map<string, Map<string, Written>>();
  private writes = 0;

  write(user: string, time: number, account: Account, records: Iterable<OrderRecord>): AccountHashWrite {
    const head: AccountHead = { v: 1, user, time, state: account.headState() };
    const set: Record<string, string> = { [ACCOUNT_FIELDS.head]: JSON.stringify(head) };
    const stamp = ++this.writes;
    let kept = this.written.get(user);
    const replace = kept === undefined;
    if (kept === undefined) this.written.set(user, (kept = new Map()));
    const changed: string[] = [];
    const entry = (orderId: string) => {
      let w = kept.get(orderId);
      if (w === undefined) kept.set(orderId, (w = { orderSeen: 0, recordSeen: 0, changed: 0 }));
      return w;
    };
    const change = (orderId: string, w: Written) => {
      if (w.changed !== stamp) changed.push(orderId);
      w.changed = stamp;
    };
    for (const o of account.openOrders()) {
      const w = entry(o.orderId);
      w.orderSeen = stamp;
      if (w.order === o && w.remaining === o.remaining && w.frozen === o.frozen) continue;
      w.order = o;
      w.remaining = o.remaining;
      w.frozen = o.frozen;
      change(o.orderId, w);
    }
    for (const r of records) {
      const w = entry(r.orderId);
      w.recordSeen = stamp;
      if (w.record === r) continue;
      w.record = r;
      change(r.orderId, w);
    }
    const del: string[] = [];
    for (const [orderId, w] of kept) {
      if (w.orderSeen !== stamp && w.recordSeen !== stamp) {
        kept.delete(orderId);
        del.push(accountOrderField(orderId));
        continue;
      }
      if (w.orderSeen !== stamp && w.order !== undefined) {
        w.order = w.remaining = w.frozen = undefined;
        change(orderId, w);
      }
      if (w.recordSeen !== stamp && w.record !== undefined) {
        w.record = undefined;
        change(orderId, w);
      }
    }
    for (const orderId of changed) {
      const w = kept.get(orderId)!;
      const value: AccountOrderEntry = {};
      if (w.order) value.order = orderToState(w.order);
      if (w.record) value.record = w.record;
      set[accountOrderField(orderId)] = JSON.stringify(value);
    }
    return { key: HOT_KEYS.account(user), set, del, replace };
  }
}
