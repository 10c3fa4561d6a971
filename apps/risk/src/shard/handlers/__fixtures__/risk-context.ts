import { join } from 'node:path';
import { type BusMessage, HEADER_CORRELATION_ID, HEADER_REPLY_KEY, HEADER_REPLY_TO } from '@perp/bus';
import { loadChain, type MessageBody, outputId, type RiskCommand, TOPICS } from '@perp/contracts';
import { AccountBook, type Market, MarketRegistry, Money } from '@perp/domain';
import { RiskPartition } from '../../risk-partition';
import { Output, type ReplyTo, replyToOf } from '../../turn-output';
import { applyRiskCommand } from '..';
import type { NewOrderCommand, RiskContext } from '../risk-context';

/** The devnet deployment (BTCUSDT tick 0.1 lot 0.001, default leverage 20; tier 0 fees 0.02 % / 0.05 %). */
export const chain = loadChain(join(__dirname, '../../../../../../deploy'), 'devnet');
export const T0 = 1_700_000_000_000;
export const ALICE = '0x00000000000000000000000000000000000000aa';
export const BOB = '0x00000000000000000000000000000000000000bb';
export const REPLY_TOPIC = TOPICS.replies.name;
export const REPLY_KEY = 'gateway-1';
const RISK_TOPIC = TOPICS.riskCommands.name;

/** Deterministic order and trade ids (UUID-shaped). */
export const oid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const tid = (n: number) => `11111111-1111-5111-8111-${String(n).padStart(12, '0')}`;

/** The devnet markets, with `status` overrides (e.g. `{ BTCUSDT: 'HALT' }`). */
export function devnetMarkets(status: Record<string, Market['status']> = {}): MarketRegistry {
  return new MarketRegistry(chain.markets.map((m) => ({ ...m, status: status[m.symbol] ?? m.status })));
}

/** A fresh partition 0 with a real AccountBook on the devnet chain; each input at its next offset. */
export class RiskHarness {
  readonly book: AccountBook;
  readonly p: RiskPartition;
  /** The input the last `run` or `context` made. */
  last!: BusMessage;
  private next = 0;

  constructor(readonly markets: MarketRegistry = devnetMarkets()) {
    this.p = RiskPartition.empty(0, this.markets, this.bookOptions());
    this.book = this.p.book;
  }

  /**
   * A harness on this one's partition as its snapshot restores it, going on at the same offset
   * (in a process whose market list is `markets`, by default this one's).
   */
  restored(markets = this.markets): RiskHarness {
    const snapshot = this.p.serialize();
    const h = Object.create(RiskHarness.prototype) as RiskHarness;
    const p = RiskPartition.deserialize(0, snapshot, markets, this.bookOptions());
    Object.assign(h, { markets, p, book: p.book, next: this.next });
    return h;
  }

  private bookOptions() {
    return {
      feeTiers: chain.feeTiers,
      asset: chain.settlementAsset,
    };
  }

  /**
   * The next input's context; `reply` gives it the gateway's correlation and reply-to headers,
   * `recording: false` makes it a replayed input's (Output.recording).
   */
  context({ reply = false, recording = true } = {}): RiskContext {
    const offset = String(this.next++);
    const headers: Record<string, string> = reply
      ? {
          [HEADER_CORRELATION_ID]: `corr-${offset}`,
          [HEADER_REPLY_TO]: REPLY_TOPIC,
          [HEADER_REPLY_KEY]: REPLY_KEY,
        }
      : {};
    this.last = { topic: RISK_TOPIC, partition: 0, offset, key: '', value: {}, headers, timestamp: T0 };
    const out = new Output(replyToOf(this.last), recording);
    return { p: this.p, m: this.last, out, markets: this.p.markets, asset: chain.settlementAsset };
  }

  /** Applies one command as the next input. */
  run(command: RiskCommand, opts?: { reply?: boolean; recording?: boolean }): Output {
    const ctx = this.context(opts);
    applyRiskCommand(ctx, command);
    return ctx.out;
  }

  /** The id of the `index`th output of the input at `offset` (default: the last input). */
  outId(index: number, offset = this.last.offset): string {
    return outputId(RISK_TOPIC, 0, offset, index);
  }

  /** Where the answer of the input at `offset`, run with `reply`, goes. */
  replyTo(offset = this.last.offset): ReplyTo {
    return { topic: REPLY_TOPIC, key: REPLY_KEY, correlationId: `corr-${offset}` };
  }
}

export const riskHarness = (markets?: MarketRegistry) => new RiskHarness(markets);

/** A fill of no order straight into the book (sets a position up); returns the settlement. */
export function bookFill(
  h: RiskHarness,
  user: string,
  side: 'BUY' | 'SELL',
  qty: string,
  n = 1,
  liquidity: 'MAKER' | 'TAKER' = 'MAKER',
) {
  const fill = { user, symbol: 'BTCUSDT', side, price: new Money('60000'), qty: new Money(qty), liquidity };
  return h.book.settleFill({ ...fill, closeQty: new Money(0), tradeId: tid(n), time: T0 });
}

/** Any risk command from its body (envelope filled in). */
export function cmd(body: MessageBody<RiskCommand>, time = T0): RiskCommand {
  return { ...body, id: `cmd-${time}`, v: 1, time } as RiskCommand;
}

export const deposit = (user: string, amount: string, id = `dep-${user}-${amount}`): RiskCommand => ({
  ...cmd({ type: 'deposit', user, asset: 'USDT', amount, actor: 'admin' }),
  id,
});

/** Order `n` (id oid(n), client id c<n>): ALICE, BTCUSDT, LIMIT GTC BUY 0.01 @ 60000 unless overridden. */
export function newOrder(n: number, fields: Partial<MessageBody<NewOrderCommand>> = {}): NewOrderCommand {
  return cmd({
    type: 'order.new',
    orderId: oid(n),
    clientOrderId: `c${n}`,
    user: ALICE,
    symbol: 'BTCUSDT',
    side: 'BUY',
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    quantity: '0.01',
    price: '60000',
    reduceOnly: false,
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    selfTradePreventionMode: 'EXPIRE_TAKER',
    ...fields,
  }) as NewOrderCommand;
}

/** A trigger order `n`: no limit price unless given (STOP and TAKE_PROFIT need one). */
export function triggerOrder(
  n: number,
  orderType: 'STOP' | 'STOP_MARKET' | 'TAKE_PROFIT' | 'TAKE_PROFIT_MARKET',
  side: 'BUY' | 'SELL',
  stopPrice: string | undefined,
  fields: Partial<MessageBody<NewOrderCommand>> = {},
): NewOrderCommand {
  const order = newOrder(n, { orderType, side, stopPrice, ...fields });
  if (!('price' in fields)) delete order.price;
  if (stopPrice === undefined) delete order.stopPrice;
  return order;
}

export const cancel = (ref: { orderId?: string; clientOrderId?: string }, user = ALICE, symbol = 'BTCUSDT') =>
  cmd({ type: 'order.cancel', user, symbol, ...ref });

export const cancelAll = (user = ALICE, symbol = 'BTCUSDT') => cmd({ type: 'order.cancelAll', user, symbol });

export const amend = (orderId: string, side: 'BUY' | 'SELL', price: string, quantity: string, user = ALICE) =>
  cmd({ type: 'order.amend', user, symbol: 'BTCUSDT', orderId, side, price, quantity });

/** The engine's copy of a market's status, from its command at `offset` (partition 0). */
export const marketStatus = (status: Market['status'], offset: number, symbol = 'BTCUSDT') =>
  cmd({ type: 'market.state', symbol, status, source: { partition: 0, offset: String(offset) } });

/** The engine's copy of a market it listed at run time, as the engine sends it (with its definition). */
export const marketListing = (market: Market, offset: number) =>
  cmd({
    type: 'market.state',
    symbol: market.symbol,
    status: market.status,
    source: { partition: 0, offset: String(offset) },
    market: market as unknown as Record<string, unknown>,
  });

export const markPrice = (price: string, symbol = 'BTCUSDT', time = T0) =>
  cmd({ type: 'price.mark', symbol, markPrice: price, indexPrice: price }, time);
