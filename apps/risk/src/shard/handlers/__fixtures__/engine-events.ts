import { type EngineEvent, type MessageBody, outputId, type RiskCommand, TOPICS } from '@perp/contracts';
import { Money } from '@perp/domain';
import { ALICE, BOB, cmd, oid, T0, tid } from './risk-context';

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

/**
 * The engine's copy of an engine event for one user, from the engine command at (`partition`,
 * `offset`, `index`).
 */
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

/** The MAKER copy (engine offset `offset`) of a fill of ALICE's order 1, BUY @ 60000, by BOB's order 2. */
export const makerFillOfOrder1 = (qty: string, offset: number) =>
  copy(
    trade(
      { user: ALICE, orderId: oid(1), side: 'BUY' },
      { user: BOB, orderId: oid(2), side: 'SELL' },
      '60000',
      qty,
    ),
    offset,
    0,
    'MAKER',
  );

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
