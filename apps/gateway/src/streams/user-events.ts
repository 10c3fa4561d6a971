import type { Logger } from '@nestjs/common';
import type { BusMessage } from '@perp/bus';
import { type AccountEvent, parseMessage } from '@perp/contracts';
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

type Change = AccountChange & { input: string; offsets: bigint[]; partition: number };

/**
 * Turns account events (consecutive messages of one partition) into Binance user data events:
 * events grouped by the input that caused them (risk emits one input's events together and in
 * order, per user), each stream event placed at the account event it renders. The live feed and a
 * replay of missed events render with it, so both give the same events at the same places.
 */
export class UserEventRenderer {
  /** Last wallet balance seen per user (for ACCOUNT_UPDATE's balance change). */
  private readonly wallets = new Map<string, Money>();

  constructor(
    private readonly markets: MarketRegistry,
    private readonly logger: Logger,
    /** Users whose events to render (the wallets of every user are followed). */
    private readonly wanted: (user: string) => boolean,
  ) {}

  render(ms: readonly BusMessage[], now: number): UserStreamEvent[] {
    const out: UserStreamEvent[] = [];
    let change: Change | undefined;
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
      if (change && (change.input !== input || change.user !== e.user)) {
        this.emit(change, now, out);
        change = undefined;
      }
      change ??= { input, user: e.user, time: e.time, events: [], offsets: [], partition: m.partition };
      change.events.push(e);
      change.offsets.push(BigInt(m.offset));
    }
    if (change) this.emit(change, now, out);
    return out;
  }

  private emit(change: Change, now: number, out: UserStreamEvent[]): void {
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
