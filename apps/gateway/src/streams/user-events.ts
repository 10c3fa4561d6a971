import type { Logger } from '@nestjs/common';
import type { BusMessage } from '@perp/bus';
import { type AccountEvent, HEADER_INPUT_END, parseMessage } from '@perp/contracts';
import { type MarketRegistry, Money, type UserStreamPlace } from '@perp/domain';
import { type AccountChange, accountUpdate, orderTradeUpdate } from './user-payloads';

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
  /** Last wallet balance seen per user (for ACCOUNT_UPDATE's balance change). */
  private readonly wallets = new Map<string, Money>();
  /** Groups whose last event has not come yet, by user. */
  private readonly open = new Map<string, Change>();

  constructor(
    private readonly markets: MarketRegistry,
    private readonly logger: Logger,
    /** Users whose events to render (the wallets of every user are followed). */
    private readonly wanted: (user: string) => boolean,
  ) {}

  render(ms: readonly BusMessage[], now: number): UserStreamEvent[] {
    const out: UserStreamEvent[] = [];
    for (const m of ms) {
      let e: AccountEvent;
      try {
        e = parseMessage('accountEvents', m.value);
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
    for (const e of change.events)
      if (e.type === 'balance') this.wallets.set(change.user, new Money(e.walletBalance));
    if (!this.wanted(change.user)) return;
    const { user, partition } = change;
    const groupStart = change.offsets[0]!;
    const fills = new Map<string, Extract<AccountEvent, { type: 'trade' }>['trade']>();
    for (const [i, e] of change.events.entries()) {
      if (e.type === 'trade') fills.set(e.trade.orderId, e.trade);
      else if (e.type === 'order') {
        const fill = fills.get(e.order.orderId);
        fills.delete(e.order.orderId);
        const data = orderTradeUpdate(this.markets.find(e.order.symbol), e.order, fill, now);
        out.push({ user, place: { partition, groupStart, offset: change.offsets[i]!, sub: 0 }, data });
      }
    }
    const update = accountUpdate(change, previous, now);
    const offset = change.offsets[change.offsets.length - 1]!;
    if (update) out.push({ user, place: { partition, groupStart, offset, sub: 1 }, data: update });
  }
}
