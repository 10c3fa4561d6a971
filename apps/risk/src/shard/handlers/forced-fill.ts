import { INSURANCE_FUND, Money, type SettlementFill, type SettlementResult } from '@perp/domain';
import type { Trade } from './fill';
import type { RiskContext } from './risk-context';

/**
 * One side of a LIQUIDATION trade's taker (the liquidated user) or of an ADL trade (either side),
 * commission-free. The liquidated side pays the clearance fee into the partition's insurance share
 * (LIQUIDATION only, capped by what it has left) and is paid back to zero by that share if the
 * close left it below; each movement is an `insurance` event (amount signed: + in, - out), and
 * the fills add up on the liquidation in flight for its force order. The ADL counterparty gets a
 * force order (autoCloseType ADL) per trade copy.
 */
export function settleForcedFill(
  ctx: RiskContext,
  trade: Trade,
  liquidity: 'MAKER' | 'TAKER',
  fill: SettlementFill,
): SettlementResult {
  const { p, out } = ctx;
  const kind = trade.kind ?? 'LIQUIDATION';
  const liquidated = liquidity === 'TAKER';
  const r = p.book.settleForcedFill(fill, kind, liquidated);
  const insurance = (type: 'LIQUIDATION_FEE' | 'BANKRUPTCY_LOSS', amount: Money) =>
    out.accountEvents.push({
      type: 'insurance',
      partition: p.partition,
      symbol: trade.symbol,
      kind: type,
      amount: amount.toFixed(),
      balance: p.book.ledger.balance(INSURANCE_FUND).toFixed(),
      ref: trade.tradeId,
    });
  if (r.clearanceFee.gt(0)) insurance('LIQUIDATION_FEE', r.clearanceFee);
  if (r.insurancePayout.gt(0)) insurance('BANKRUPTCY_LOSS', r.insurancePayout.negated());
  if (liquidated) {
    const entry = p.liquidations.get(trade.taker.orderId);
    if (entry)
      p.liquidations.set(entry.liquidationId, {
        ...entry,
        fee: new Money(entry.fee).plus(r.clearanceFee).toFixed(),
        executedQty: new Money(entry.executedQty).plus(trade.qty).toFixed(),
        cumQuote: new Money(entry.cumQuote).plus(fill.price.times(fill.qty)).toFixed(),
        updateTime: Math.max(entry.updateTime, trade.time),
      });
  } else {
    out.accountEvents.push({
      type: 'forceOrder',
      user: fill.user,
      forceOrder: {
        orderId: trade.maker.orderId,
        symbol: trade.symbol,
        autoCloseType: 'ADL',
        side: trade.maker.side,
        price: trade.price,
        avgPrice: new Money(trade.price).toFixed(), // as the liquidation's and every order's avgPrice
        origQty: trade.qty,
        executedQty: trade.qty,
        fee: '0',
        time: trade.time,
        updateTime: trade.time,
      },
    });
  }
  return r;
}
