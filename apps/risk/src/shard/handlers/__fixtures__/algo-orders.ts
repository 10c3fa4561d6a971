import type { MessageBody, RiskCommand } from '@perp/contracts';
import { ALICE, cmd, T0 } from './risk-context';

type NewAlgo = Extract<RiskCommand, { type: 'algo.new' }>;

/** An algo order of ALICE on BTCUSDT: GTC, 0.01, no price unless given. */
export function newAlgo(
  clientAlgoId: string,
  orderType: NewAlgo['orderType'],
  side: 'BUY' | 'SELL',
  fields: Partial<MessageBody<NewAlgo>> = {},
  time = T0,
): NewAlgo {
  return cmd(
    {
      type: 'algo.new',
      clientAlgoId,
      user: ALICE,
      symbol: 'BTCUSDT',
      side,
      orderType,
      quantity: '0.01',
      closePosition: false,
      reduceOnly: false,
      timeInForce: 'GTC',
      workingType: 'MARK_PRICE',
      priceProtect: false,
      ...fields,
    },
    time,
  ) as NewAlgo;
}

export const cancelAlgo = (ref: { algoId?: number; clientAlgoId?: string }, user = ALICE) =>
  cmd({ type: 'algo.cancel', user, ...ref });

export const cancelAllAlgo = (user = ALICE, symbol = 'BTCUSDT') =>
  cmd({ type: 'algo.cancelAll', user, symbol });

export const clockTick = (time: number) => cmd({ type: 'clock.tick' }, time);
