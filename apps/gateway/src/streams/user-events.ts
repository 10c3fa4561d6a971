import type { Logger } from '@nestjs/common';
import type { BusMessage } from '@perp/bus';
import { type AccountEvent, HEADER_INPUT_END, parseMessage } from '@perp/contracts';
import type { MarketRegistry, UserStreamPlace } from '@perp/domain';
import {
  accountConfigUpdate,
  type AccountChange,
  accountUpdate,
  algoUpdate,
  marginCall,
  orderTradeUpdate,
} from './user-payloads';

/** One user data event and its place on the log. */
export interface UserStreamEvent {
  user: string;
  place: UserStreamPlace;
  data: unknown;
}

/** The input an account event came from: its id without the output index (see outputId). */
function inputOf(e: AccountEvent): string {
  const cut = e.id.lastIndexOf('/');
  return cut < 0 ? e.id : e.id.slice(0, cut);
}

type Change = AccountChange & { input: string; offsets: bigint[]; partition: number; unmarked?: boolean };

/**
 * Turns account events (consecutive messages of one partition) into Binance user data events:
 * events grouped by the input that caused them and the user (risk marks each group's last event
 * with HEADER_INPUT_END; a group may span two fetches, or have another user's events between its
 * own), each stream event placed at the account event it renders. The live feed and a replay of
 * missed events render with it, so both give the same events at the same places.
 */
export class UserEventRenderer {
  /** Last wallet balance seen per user, as the event carried it (ACCOUNT_UPDATE's balance change). */
  private readonly wallets = new Map<string, string>();
  /** Groups whose last event has not come yet, by user. */
  private readonly open = new Map<string, Change>();

  constructor(
    private readonly markets: MarketRegistry,
    private readonly logger: Logger,
    /** Users whose events to render (the wallets of every user are followed). */
    private readonly wanted: (user: string) => boolean,
    /** Told of every user's input group once whole (the live feed's native channels and forceOrder streams). */
    private readonly onGroup: (change: AccountChange) => void = () => undefined,
  ) {}

  render(ms: readonly BusMessage[], now: number): UserStreamEvent[] {
    const out: UserStreamEvent[] = [];
    for (const m of ms) {
      let e: AccountEvent;
      try {
        e = parseMessage('accountEvents', m.value, m.inProcess);
      } catch (err) {
        this.logger.warn(`skipped ${m.topic}/${m.partition}@${m.offset}: ${String(err)}`);
        continue;
      }
      if (!('user' in e)) continue; // the insurance fund's movements: no user stream
      const input = inputOf(e);
      let change = this.open.get(e.user);
      if (change && change.input !== input) {
        // The previous input's end never came (events written before the header): close it here.
        this.emit(change, now, out);
        change = undefined;
      }
      if (!change) {
        change = { input, user: e.user, time: e.time, events: [], offsets: [], partition: m.partition };
        this.open.set(e.user, change);
      }
      change.events.push(e);
      change.offsets.push(BigInt(m.offset));
      const end = m.headers[HEADER_INPUT_END];
      if (end === '1') this.emit(change, now, out);
      else if (end === undefined) change.unmarked = true;
    }
    // Events written before the header: a group ends with its fetch, as it always did.
    for (const change of [...this.open.values()]) if (change.unmarked) this.emit(change, now, out);
    return out;
  }

  private emit(change: Change, now: number, out: UserStreamEvent[]): void {
    this.open.delete(change.user);
    const previous = this.wallets.get(change.user);
    for (const e of change.events) if (e.type === 'balance') this.wallets.set(change.user, e.walletBalance);
    this.onGroup(change);
    if (!this.wanted(change.user)) return;
    const { user, partition } = change;
    const groupStart = change.offsets[0]!;
    const fills = new Map<string, Extract<AccountEvent, { type: 'trade' }>['trade']>();
    // The orders algo orders fired as, as the input left them (ALGO_UPDATE's fill figures).
    const orders = new Map<string, Extract<AccountEvent, { type: 'order' }>['order']>();
    for (const e of change.events) if (e.type === 'order') orders.set(e.order.orderId, e.order);
    // Each account event renders at most one event of its own, placed at its offset (sub 0).
    for (const [i, e] of change.events.entries()) {
      let data: unknown;
      if (e.type === 'trade') fills.set(e.trade.orderId, e.trade);
      else if (e.type === 'order') {
        const fill = fills.get(e.order.orderId);
        fills.delete(e.order.orderId);
        data = orderTradeUpdate(this.markets.find(e.order.symbol), e.order, fill, now);
      } else if (e.type === 'algoOrder') data = algoUpdate(e.algo, orders.get(e.algo.actualOrderId), now);
      else if (e.type === 'leverage') data = accountConfigUpdate(e, now);
      else if (e.type === 'marginCall') data = marginCall(e, now);
      if (data !== undefined)
        out.push({ user, place: { partition, groupStart, offset: change.offsets[i]!, sub: 0 }, data });
    }
    const update = accountUpdate(change, previous, now);
    const offset = change.offsets[change.offsets.length - 1]!;
    if (update) out.push({ user, place: { partition, groupStart, offset, sub: 1 }, data: update });
  }
}
