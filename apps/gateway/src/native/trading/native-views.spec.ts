import type { OrderRecord } from '@perp/contracts';
import { Account, Money, parseMarket } from '@perp/domain';
import type { AccountSnapshot } from '../../fapi/account/account-reader';
import { symbolRisks } from '../../fapi/account/position-risk-view';
import { nativeAccount } from './native-account-view';
import { nativeRecordView } from './native-order-view';
import { nativeOpenInterest } from './open-interest-view';

const btc = parseMarket({
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '5000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '100',
  maxShortOi: '90',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [{ notionalCap: '1000000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});
const USER = '0x' + 'cd'.repeat(20);

const record = (over: Partial<OrderRecord> = {}): OrderRecord => ({
  orderId: '00000000-0000-4000-8000-000000000009',
  user: USER,
  symbol: 'BTCUSDT',
  status: 'NEW',
  clientOrderId: 'c',
  price: '50000.0',
  avgPrice: '0.0',
  origQty: '0.100',
  executedQty: '0.000',
  cumQuote: '0',
  timeInForce: 'GTC',
  type: 'LIMIT',
  origType: 'LIMIT',
  reduceOnly: false,
  side: 'BUY',
  positionSide: 'BOTH',
  stopPrice: '0.0',
  workingType: 'CONTRACT_PRICE',
  priceProtect: false,
  selfTradePreventionMode: 'EXPIRE_TAKER',
  time: 1_700_000_000_000,
  updateTime: 1_700_000_001_000,
  ...over,
});

describe('nativeRecordView', () => {
  it('an open order: remaining = quantity - filled; no average before a fill; ISO times', () => {
    expect(
      nativeRecordView(
        record({ status: 'PARTIALLY_FILLED', executedQty: '0.040', avgPrice: '50000', cumQuote: '2000' }),
        btc,
      ),
    ).toEqual({
      id: '00000000-0000-4000-8000-000000000009',
      client_order_id: 'c',
      symbol: 'BTCUSDT',
      side: 'buy',
      type: 'limit',
      status: 'partially_filled',
      time_in_force: 'gtc',
      reduce_only: false,
      price: '50000.0',
      quantity: '0.100',
      filled_quantity: '0.040',
      remaining_quantity: '0.060',
      average_price: '50000',
      filled_notional: '2000',
      created_at: '2023-11-14T22:13:20.000Z',
      updated_at: '2023-11-14T22:13:21.000Z',
    });
    expect(nativeRecordView(record(), btc).average_price).toBeNull();
  });

  it('a done order has nothing remaining; a market order has no price', () => {
    const v = nativeRecordView(
      record({ status: 'CANCELED', type: 'MARKET', side: 'SELL', price: '0.0' }),
      btc,
    );
    expect(v).toMatchObject({
      status: 'canceled',
      type: 'market',
      side: 'sell',
      price: null,
      remaining_quantity: '0.000',
    });
  });
});

describe('nativeAccount', () => {
  it('an account never written: zero balances, no positions, no update time', () => {
    const snapshot: AccountSnapshot = {
      address: USER,
      account: new Account(USER),
      orders: [],
      time: 0,
      marks: new Map(),
    };
    const account = snapshot.account;
    const v = nativeAccount(
      snapshot,
      account.balances(
        () => undefined,
        () => btc,
      ),
      [],
      'USDT',
    );
    expect(v).toEqual({
      address: USER,
      margin_mode: 'cross',
      vip_tier: 0,
      balances: {
        asset: 'USDT',
        wallet_balance: '0.00000000',
        available_balance: '0.00000000',
        unrealized_pnl: '0.00000000',
        margin_balance: '0.00000000',
        position_margin: '0.00000000',
        isolated_margin: '0.00000000',
        order_margin: '0.00000000',
        maintenance_margin: '0.00000000',
        margin_ratio: '0.00000000',
      },
      positions: [],
      open_orders: 0,
      updated_at: null,
    });
    expect(symbolRisks(snapshot, [], () => btc, new Money('0.0005'))).toEqual([]);
  });
});

describe('nativeOpenInterest', () => {
  const oi = { symbol: 'BTCUSDT', long: new Money('1.5'), short: new Money('1.5'), time: 1_700_000_000_000 };

  it('base units at the lot precision, USD at the mark, caps per side', () => {
    expect(nativeOpenInterest(btc, oi, new Money(50000))).toEqual({
      symbol: 'BTCUSDT',
      long_oi: '1.500',
      short_oi: '1.500',
      long_oi_usd: '75000.00000000',
      short_oi_usd: '75000.00000000',
      max_long_oi: '100',
      max_short_oi: '90',
      max_long_oi_usd: '5000000.00000000',
      max_short_oi_usd: '4500000.00000000',
      mark_price: '50000',
      updated_at: '2023-11-14T22:13:20.000Z',
    });
  });

  it('USD figures are null while no mark price is known', () => {
    const v = nativeOpenInterest(btc, { ...oi, time: 0 }, undefined);
    expect(v).toMatchObject({
      long_oi_usd: null,
      max_short_oi_usd: null,
      mark_price: null,
      updated_at: null,
    });
  });
});
