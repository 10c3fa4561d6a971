import type { OrderRecord } from '@perp/contracts';
import { parseMarket } from '@perp/domain';
import { isOpen, newOrderRecord, recordAmended, recordClosed, recordFill } from './order-records';
import { Money } from '@perp/domain';

describe('order records', () => {
  const market = parseMarket({
    symbol: 'BTCUSDT',
    baseAsset: 'BTC',
    quoteAsset: 'USDT',
    underlyingType: 'COIN',
    status: 'TRADING',
    tickSize: '0.1',
    lotSize: '0.001',
    minOrderSizeUsd: '5',
    maxOrderSizeUsd: '5000000',
    maxLeverage: 125,
    defaultLeverage: 20,
    maxLongOi: '10000',
    maxShortOi: '10000',
    fundingIntervalHours: 8,
    interestRate: '0.0000125',
    maxOpenOrders: 200,
    maxAlgoOrders: 10,
    rank: 1,
    sortOrder: 1,
    onboardDate: 0,
    maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 }],
  });
  const placed = newOrderRecord(
    {
      orderId: '0b0f6a52-0c4c-4a53-9d8e-5d1f3e7a9b10',
      clientOrderId: 'c1',
      user: '0x00000000000000000000000000000000000000aa',
      symbol: 'BTCUSDT',
      side: 'BUY',
      orderType: 'LIMIT',
      timeInForce: 'GTX',
      price: '50000',
      reduceOnly: false,
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      selfTradePreventionMode: 'EXPIRE_TAKER',
      time: 1000,
    },
    new Money('0.3'),
    market,
  );
  /** A fill of `qty` at `price`, its quote computed as the fill handler does. */
  const fillOf = (record: OrderRecord, price: string, qty: string, time: number) =>
    recordFill(
      record,
      { qty: new Money(qty), price: new Money(price), quote: new Money(price).times(qty), time },
      market,
    );

  it('starts NEW at the market precision; GTX is stored as GTC', () => {
    expect(placed).toMatchObject({
      status: 'NEW',
      price: '50000.0',
      origQty: '0.300',
      executedQty: '0.000',
      timeInForce: 'GTC',
    });
    expect(isOpen(placed)).toBe(true);
  });

  it('fills accumulate quote exactly and average the price; the last fill makes it FILLED', () => {
    const one = fillOf(placed, '50000', '0.1', 1001);
    expect(one).toMatchObject({
      status: 'PARTIALLY_FILLED',
      executedQty: '0.100',
      cumQuote: '5000',
      avgPrice: '50000',
    });
    const two = fillOf(one, '49999.9', '0.2', 1002);
    expect(two).toMatchObject({
      status: 'FILLED',
      executedQty: '0.300',
      cumQuote: '14999.98',
      updateTime: 1002,
    });
    expect(two.avgPrice).toBe('49999.93333333');
    expect(isOpen(two)).toBe(false);
  });

  it('an amend sets the open quantity on top of what was executed; close keeps the latest time', () => {
    const filled = fillOf(placed, '50000', '0.1', 1001);
    expect(recordAmended(filled, '49000', '0.5', 1003, market)).toMatchObject({
      price: '49000.0',
      origQty: '0.600',
    });
    expect(recordClosed(filled, 'CANCELED', 900)).toMatchObject({ status: 'CANCELED', updateTime: 1001 });
  });
});
