import type { BusMessage } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import type { OrderCommand } from '../engine-shard';

/** The engine-commands message at `offset` of partition 0 (the place a command is applied at). */
export const commandAt = (offset: number): BusMessage =>
  ({
    topic: TOPICS.engineCommands.name,
    partition: 0,
    offset: String(offset),
    key: 'BTCUSDT',
    headers: {},
    value: null,
  }) as BusMessage;

/** The `n`th LIMIT GTC `order.place` of a spec on BTCUSDT: its ids are derived from `n`. */
export function placeCommand(
  n: number,
  user: string,
  side: 'BUY' | 'SELL',
  price: string,
  quantity: string,
  extra: Partial<OrderCommand> = {},
): OrderCommand {
  return {
    id: `c-${n}`,
    v: 1,
    time: 1_700_000_000_000,
    type: 'order.place',
    symbol: 'BTCUSDT',
    orderId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    clientOrderId: `cid-${n}`,
    user,
    side,
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    quantity,
    price,
    reduceOnly: false,
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    selfTradePreventionMode: 'EXPIRE_TAKER',
    frozenMargin: '0',
    ...extra,
  } as OrderCommand;
}
