import type { EngineEvent, MessageBody } from '@perp/contracts';
import { trade } from './engine-events';
import { ALICE, BOB, bookFill, deposit, markPrice, oid, riskHarness } from './risk-context';

/**
 * ALICE long 0.01 BTCUSDT at 60000 on 100 (wallet 99.88), liquidated at mark 50200: bankruptcy
 * 50012. BOB 1000, short 0.01 at 60000 (the ADL counterparty).
 */
export function liquidated() {
  const h = riskHarness();
  h.run(deposit(ALICE, '100'));
  h.run(deposit(BOB, '1000'));
  h.run(markPrice('60000'));
  bookFill(h, ALICE, 'BUY', '0.01', 1);
  bookFill(h, BOB, 'SELL', '0.01', 2);
  const place = h.run(markPrice('50200')).engineCommands[0];
  if (place?.type !== 'liquidation.place') throw new Error('not liquidated');
  return { h, id: place.liquidationId };
}

/** A trade of the liquidation `id`: ALICE (taker) sells 0.01 at `price` to BOB's order 101. */
export const liqTrade = (id: string, price: string, kind: 'LIQUIDATION' | 'ADL' = 'LIQUIDATION', n = 3) => ({
  ...trade(
    { user: BOB, orderId: oid(101), side: 'BUY', close: '0.01' },
    { user: ALICE, orderId: id, side: 'SELL', close: '0.01' },
    price,
    '0.01',
    n,
  ),
  kind,
});

export type Done = Extract<MessageBody<EngineEvent>, { type: 'liquidation.done' }>;
export const done = (id: string, filledQty: string, avgPrice: string, fields: Partial<Done> = {}): Done => ({
  type: 'liquidation.done',
  symbol: 'BTCUSDT',
  seq: 9,
  liquidationId: id,
  user: ALICE,
  side: 'SELL',
  quantity: '0.01',
  filledQty,
  avgPrice,
  adlQty: '0',
  unfilledQty: '0',
  bankruptcyPrice: '50012',
  ...fields,
});
