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
}

/**
 * A partition's account projections as `HOT_KEYS.account` hashes, written as they change: a changed
 * account's head every time (balances, positions: small), an open order's field only when the order
 * or its record changed since this state last wrote it, a delete for an order gone. Changes are
 * told by identity, not by a JSON: a record is replaced when it changes, and a fill replaces a
 * domain order's `remaining` and `frozen`, its only fields that change in place. An account this
 * state has not written yet (a partition just loaded) is written whole, replacing the hash.
 */
export class AccountHashes {
  private readonly written = new Map<string, Map<string, Written>>();

  write(user: string, time: number, account: Account, records: Iterable<OrderRecord>): AccountHashWrite {
    const head: AccountHead = { v: 1, user, time, state: account.headState() };
    const set: Record<string, string> = { [ACCOUNT_FIELDS.head]: JSON.stringify(head) };
    const before = this.written.get(user);
    const now = new Map<string, Written>();
    for (const o of account.openOrders())
      now.set(o.orderId, { order: o, remaining: o.remaining, frozen: o.frozen });
    for (const r of records) {
      const w = now.get(r.orderId);
      if (w) w.record = r;
      else now.set(r.orderId, { record: r });
    }
    for (const [orderId, w] of now) {
      const b = before?.get(orderId);
      if (
        b &&
        b.order === w.order &&
        b.remaining === w.remaining &&
        b.frozen === w.frozen &&
        b.record === w.record
      )
        continue;
      const entry: AccountOrderEntry = {};
      if (w.order) entry.order = orderToState(w.order);
      if (w.record) entry.record = w.record;
      set[accountOrderField(orderId)] = JSON.stringify(entry);
    }
    const del: string[] = [];
    if (before)
      for (const orderId of before.keys()) if (!now.has(orderId)) del.push(accountOrderField(orderId));
    this.written.set(user, now);
    return { key: HOT_KEYS.account(user), set, del, replace: !before };
  }
}
