import { join } from 'node:path';
import { type BusMessage, HEADER_CORRELATION_ID, HEADER_REPLY_KEY, HEADER_REPLY_TO } from '@perp/bus';
import {
  type EngineEvent,
  loadChain,
  type MessageBody,
  outputId,
  type RiskCommand,
  TOPICS,
} from '@perp/contracts';
import { AccountBook, type Market, MarketRegistry, Money } from '@perp/domain';
import { RiskPartition } from '../../risk-partition';
import { Output, type ReplyTo } from '../../turn-output';
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

export interface RiskHarness {
  readonly p: RiskPartition;
  readonly book: AccountBook;
  readonly markets: MarketRegistry;
  /** The input the last `run` or `context` made. */
  readonly last: BusMessage;
  /** A context at the next offset of partition 0 of the risk-commands topic. */
  context(opts?: { reply?: boolean }): RiskContext;
  /** Applies one command as the next input; `reply` gives it correlation and reply-to headers. */
  run(command: RiskCommand, opts?: { reply?: boolean }): Output;
  /** The id of the `index`th output of the input at `offset` (default: the last input). */
  outId(index: number, offset?: string): string;
  /** Where the reply of the input at `offset` goes when it was run with `reply`. */
  replyTo(offset?: string): ReplyTo;
}

/** A fresh partition 0 with a real AccountBook on the devnet chain. */
export function riskHarness(markets: MarketRegistry = devnetMarkets()): RiskHarness {
  const book = new AccountBook({
    markets: (s) => markets.find(s),
    feeTiers: chain.feeTiers,
    asset: chain.settlementAsset,
  });
  const p = new RiskPartition(0, book);
  let next = 0;
  let last: BusMessage | undefined;
  const replyTo = (offset = h.last.offset): ReplyTo => ({
    topic: REPLY_TOPIC,
    key: REPLY_KEY,
    correlationId: `corr-${offset}`,
  });
  const h: RiskHarness = {
    p,
    book,
    markets,
    get last() {
      if (!last) throw new Error('no input yet');
      return last;
    },
    context({ reply = false } = {}) {
      const offset = String(next++);
      const headers: Record<string, string> = reply
        ? {
            [HEADER_CORRELATION_ID]: `corr-${offset}`,
            [HEADER_REPLY_TO]: REPLY_TOPIC,
            [HEADER_REPLY_KEY]: REPLY_KEY,
          }
        : {};
      const m = { topic: RISK_TOPIC, partition: 0, offset, key: '', value: {}, headers, timestamp: T0 };
      last = m;
      return { p, m, out: new Output(reply ? replyTo(offset) : undefined), markets, asset: 'USDT' };
    },
    run(command, opts) {
      const ctx = h.context(opts);
      applyRiskCommand(ctx, command);
      return ctx.out;
    },
    outId: (index, offset = h.last.offset) => outputId(RISK_TOPIC, 0, offset, index),
    replyTo,
  };
  return h;
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

export const markPrice = (price: string, symbol = 'BTCUSDT', time = T0) =>
  cmd({ type: 'price.mark', symbol, markPrice: price, indexPrice: price }, time);

/** An engine event from its body, as produced at engine command `offset` of `partition`. */
export function engineEvent<T extends MessageBody<EngineEvent>>(
  body: T,
  offset = 0,
  index = 0,
  partition = 0,
) {
  const id = outputId(TOPICS.engineCommands.name, partition, String(offset), index);
  return { ...body, id, v: 1 as const, time: T0 };
}

/** The router's copy of an engine event, from the engine command at (`partition`, `offset`, `index`). */
export function copy(
  event: MessageBody<EngineEvent>,
  offset: number,
  index = 0,
  liquidity?: 'MAKER' | 'TAKER',
  partition = 0,
): RiskCommand {
  return cmd({
    type: 'engine.event',
    source: { partition, offset: String(offset), index },
    ...(liquidity ? { liquidity } : {}),
    event: engineEvent(event, offset, index, partition) as EngineEvent,
  });
}

export interface TradeSide {
  user: string;
  orderId: string;
  side: 'BUY' | 'SELL';
  /** The part of qty that closes the user's position (default 0). */
  close?: string;
}

/** A trade of `qty` at `price` between a maker and a taker (BTCUSDT unless given). */
export function trade(
  maker: TradeSide,
  taker: TradeSide,
  price: string,
  qty: string,
  n = 1,
  symbol = 'BTCUSDT',
) {
  const side = ({ close = '0', ...s }: TradeSide) => ({
    ...s,
    split: { open: new Money(qty).minus(close).toFixed(), close },
  });
  return {
    type: 'trade' as const,
    symbol,
    seq: n,
    tradeId: tid(n),
    price,
    qty,
    maker: side(maker),
    taker: side(taker),
  };
}

export const canceled = (user: string, orderId: string, remaining = '0.01') => ({
  type: 'order.canceled' as const,
  orderId,
  clientOrderId: 'c',
  user,
  symbol: 'BTCUSDT',
  seq: 1,
  remaining,
});

/** The engine's last event of a forwarded command. */
export function commandResult(
  fields: Partial<Extract<MessageBody<EngineEvent>, { type: 'command.result' }>> = {},
): Extract<MessageBody<EngineEvent>, { type: 'command.result' }> {
  return {
    type: 'command.result',
    symbol: 'BTCUSDT',
    seq: 1,
    user: ALICE,
    command: 'order.place',
    ok: true,
    ...fields,
  };
}
