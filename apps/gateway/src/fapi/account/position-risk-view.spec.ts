import { AccountBook, type FeeTier, Money, parseMarket } from '@perp/domain';
import type { AccountSnapshot } from './account-reader';
import { positionRiskV2Row, symbolRisks } from './position-risk-view';

const BTC = parseMarket({
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '5000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '10000',
  maxShortOi: '10000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [
    { notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 },
    { notionalCap: '600000', maintMarginRatio: '0.005', maxLeverage: 100 },
    { notionalCap: '3000000', maintMarginRatio: '0.0065', maxLeverage: 75 },
  ],
});
const FEES: FeeTier[] = [{ tier: 0, makerRate: '0.0002', takerRate: '0.0005' }];
const markets = (s: string) => (s === BTC.symbol ? BTC : undefined);
const m = (x: string) => new Money(x);

// liquidationPrice and breakEvenPrice: libs/domain/src/account/position-metrics.spec.ts.
describe('symbolRisks against the domain margin model', () => {
  function account(side: 'BUY' | 'SELL') {
    const book = new AccountBook({ markets, feeTiers: FEES });
    const user = '0x' + '1'.repeat(40);
    book.deposit(user, m('5000'), 'd');
    const placed = book.placeOrder(user, {
      orderId: 'o',
      clientOrderId: 'c',
      symbol: BTC.symbol,
      side,
      type: 'LIMIT',
      quantity: m('1'),
      price: m('50000'),
    });
    expect(placed.ok).toBe(true);
    book.settleFill({
      user,
      orderId: 'o',
      symbol: BTC.symbol,
      side,
      price: m('50000'),
      qty: m('1'),
      liquidity: 'MAKER',
      closeQty: m('0'),
      tradeId: 't',
      time: 1,
    });
    return book.find(user)!;
  }
  const snapshot = (side: 'BUY' | 'SELL', mark: string): AccountSnapshot => ({
    address: 'x',
    account: account(side),
    orders: [],
    time: 7,
    marks: new Map([[BTC.symbol, m(mark)]]),
  });

  it.each(['BUY', 'SELL'] as const)('%s: at the liquidation price the margin ratio is 1', (side) => {
    const [risk] = symbolRisks(snapshot(side, '50000'), [BTC.symbol], markets, m('0.0005'));
    const liq = risk.liquidationPrice;
    expect(liq.gt(0)).toBe(true);
    const at = snapshot(side, liq.toFixed(8));
    const ratio = at.account.balances((s) => at.marks.get(s), markets).marginRatio;
    expect(ratio.minus(1).abs().lt('0.000001')).toBe(true);
  });

  it('formats a v2 row: signed notional, LONG/SHORT, 8-decimal amounts', () => {
    const [risk] = symbolRisks(snapshot('SELL', '49000'), [BTC.symbol], markets, m('0.0005'));
    expect(positionRiskV2Row(risk)).toEqual({
      symbol: 'BTCUSDT',
      positionAmt: '-1.000',
      entryPrice: '50000',
      breakEvenPrice: '49950.02498751',
      markPrice: '49000',
      unRealizedProfit: '1000.00000000',
      // wallet 4990 (maker fee 10): bracket 2, (50000 + 4990 + 50) / 1.005
      liquidationPrice: '54766.16915423',
      leverage: '20',
      maxNotionalValue: '3000000', // the largest cap whose bracket allows 20x
      marginType: 'cross',
      isolatedMargin: '0.00000000',
      isAutoAddMargin: 'false',
      positionSide: 'SHORT',
      notional: '-49000.00000000',
      isolatedWallet: '0.00000000',
      updateTime: 7,
    });
  });
});
