import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  FapiError,
  HOT_KEYS,
  NativeError,
  type OrderRecord,
  parseOrderRecord,
  userIdForAddress,
} from '@perp/contracts';
import { OrderRepository } from '@perp/persistence';
import { AccountReader } from '../../fapi/account/account-reader';
import { HistoryFreshness } from '../../fapi/account/history-freshness';
import { isOpenStatus, orderEntityView, orderView, type OrderView } from '../../fapi/account/order-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where an order id was found, seen from the caller. */
export type LocatedOrder =
  { kind: 'open'; record: OrderRecord } | { kind: 'closed'; view: OrderView } | { kind: 'foreign' };

/**
 * Finds an order by id for a caller: the caller's open orders (the live account the risk shard
 * wrote), then the closed-order record in the hot store (kept a minute), then the Postgres history.
 * The last two are looked up by id alone, so another user's order is recognised as such.
 *
 * Another user's order that is still open is only known once the history projector wrote its row
 * (asynchronously, usually within milliseconds): before that it reads as absent.
 */
@Injectable()
export class OrderLookup {
  constructor(
    private readonly reader: AccountReader,
    private readonly orders: OrderRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly freshness: HistoryFreshness,
  ) {}

  async locate(address: string, id: string): Promise<LocatedOrder | undefined> {
    if (!UUID.test(id)) return undefined;
    const orderId = id.toLowerCase();
    const { orders } = await this.reader.load(address);
    const open = orders.find((o) => o.orderId === orderId);
    if (open) return { kind: 'open', record: open };
    const closed = await this.closedRecord(orderId);
    if (closed)
      return closed.user === address ? { kind: 'closed', view: orderView(closed) } : { kind: 'foreign' };
    let row = await this.orders.findById(orderId);
    if (!row) return undefined;
    if (row.userId !== userIdForAddress(address)) return { kind: 'foreign' };
    if (isOpenStatus(row.status)) {
      // Open in its row but not in the live account, its hot record gone: the projector has not
      // written how it closed yet. Wait for it, as FAPI's order query does.
      try {
        await this.freshness.caughtUp(address);
      } catch (e) {
        if (!(e instanceof FapiError)) throw e;
        throw new NativeError('SERVICE_UNAVAILABLE', 'the order history is behind; try again');
      }
      row = (await this.orders.findById(orderId)) ?? row;
    }
    // Not among the live open orders: the order is no longer working, whatever the row says.
    return { kind: 'closed', view: orderEntityView(row) };
  }

  /**
   * As `locate`, with the native errors: 404 ORDER_NOT_FOUND, 403 ORDER_NOT_OWNED, 503
   * SERVICE_UNAVAILABLE (the history projector still behind after the upstream timeout).
   */
  async own(address: string, id: string): Promise<Exclude<LocatedOrder, { kind: 'foreign' }>> {
    const found = await this.locate(address, id);
    if (!found) throw new NativeError('ORDER_NOT_FOUND', `order ${id} not found`);
    if (found.kind === 'foreign')
      throw new NativeError('ORDER_NOT_OWNED', `order ${id} belongs to another account`);
    return found;
  }

  private async closedRecord(orderId: string): Promise<OrderRecord | undefined> {
    const json = await this.hot.get(HOT_KEYS.closedOrder(orderId));
    if (json === undefined) return undefined;
    try {
      return parseOrderRecord(json);
    } catch {
      return undefined; // an unreadable cache entry: Postgres has the order
    }
  }
}
