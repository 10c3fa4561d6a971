import { NativeError } from '@perp/contracts';
import { MarketRegistry, Money, parseMarket } from '@perp/domain';
import { lotQuantity, nativeAlgoCommand, nativeOrderCommand, parseNativeOrder } from './native-order-body';

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
  maxLongOi: '10000',
  maxShortOi: '10000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [{ notionalCap: '1000000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});
const markets = new MarketRegistry([
  btc,
  parseMarket({ ...btc, symbol: 'ETHUSDT', baseAsset: 'ETH', status: 'HALT' }),
]);
const USER = '0x' + 'ab'.repeat(20);

function refusal(body: unknown): { code: string; status: number } | undefined {
  try {
    parseNativeOrder(body, markets);
    return undefined;
  } catch (e) {
    if (!(e instanceof NativeError)) throw e;
    return { code: e.code, status: e.status };
  }
}

const limit = { symbol: 'BTCUSDT', side: 'buy', type: 'limit', quantity: '0.01', price: '50000' };
const stop = {
  symbol: 'BTC-USD',
  side: 'sell',
  type: 'stop_market',
  quantity: '0.01',
  trigger_price: '48000',
};

describe('parseNativeOrder', () => {
  it('normalizes symbol aliases and case-insensitive enums', () => {
    const o = parseNativeOrder({ ...limit, symbol: 'btc-usd', side: 'SELL', type: 'LiMiT' }, markets);
    expect(o).toMatchObject({ side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', reduceOnly: false });
    expect(o.market.symbol).toBe('BTCUSDT');
    expect(o.quantity.toFixed()).toBe('0.01');
    expect(
      parseNativeOrder({ ...limit, symbol: undefined, market_symbol: 'BTC_USDT' }, markets).market.symbol,
    ).toBe('BTCUSDT');
  });

  it('reads the optional fields', () => {
    const o = parseNativeOrder(
      {
        ...limit,
        leverage: '10',
        reduce_only: 'true',
        time_in_force: 'post_only',
        client_order_id: 'my.id-1',
      },
      markets,
    );
    expect(o).toMatchObject({ leverage: 10, reduceOnly: true, timeInForce: 'GTX', clientOrderId: 'my.id-1' });
    const market = parseNativeOrder(
      { symbol: 'BTCUSDT', side: 'buy', type: 'market', quantity: 1, max_slippage: '0.005' },
      markets,
    );
    expect(market.maxSlippage?.toFixed()).toBe('0.005');
    expect(market.price).toBeUndefined();
    // A limit price bounds the fill already: max_slippage is dropped there.
    expect(parseNativeOrder({ ...limit, max_slippage: '0.01' }, markets).maxSlippage).toBeUndefined();
  });

  it.each([
    ['unknown symbol', { ...limit, symbol: 'NOPE-USD' }, 'INVALID_SYMBOL', 400],
    ['missing symbol', { ...limit, symbol: undefined }, 'INVALID_SYMBOL', 400],
    ['halted market', { ...limit, symbol: 'ETHUSDT' }, 'INVALID_SYMBOL', 400],
    ['symbol not a string', { ...limit, symbol: 5 }, 'INVALID_SYMBOL', 400],
    ['two different symbols', { ...limit, market_symbol: 'ETH-USD' }, 'INVALID_REQUEST', 400],
    ['missing side', { ...limit, side: undefined }, 'INVALID_REQUEST', 400],
    ['bad type', { ...limit, type: 'stop' }, 'INVALID_REQUEST', 400],
    ['zero quantity', { ...limit, quantity: '0' }, 'INVALID_AMOUNT', 400],
    ['missing quantity', { ...limit, quantity: undefined }, 'INVALID_AMOUNT', 400],
    ['quantity with exponent', { ...limit, quantity: '1e3' }, 'INVALID_AMOUNT', 400],
    ['quantity of 1,001 digits', { ...limit, quantity: '1'.repeat(1_001) }, 'INVALID_AMOUNT', 400],
    ['price of 1,001 digits', { ...limit, price: '1'.repeat(1_001) }, 'INVALID_REQUEST', 400],
    ['limit without price', { ...limit, price: undefined }, 'PRICE_REQUIRED', 400],
    ['limit with empty price', { ...limit, price: '' }, 'PRICE_REQUIRED', 400],
    ['negative price', { ...limit, price: '-1' }, 'INVALID_REQUEST', 400],
    ['price off the tick', { ...limit, price: '50000.05' }, 'INVALID_REQUEST', 400],
    ['market with a price', { ...limit, type: 'market' }, 'INVALID_REQUEST', 400],
    ['leverage 0', { ...limit, leverage: 0 }, 'INVALID_LEVERAGE', 400],
    ['leverage over max', { ...limit, leverage: 126 }, 'INVALID_LEVERAGE', 400],
    ['leverage text', { ...limit, leverage: 'ten' }, 'INVALID_LEVERAGE', 400],
    ['reduce_only not boolean', { ...limit, reduce_only: 'yes' }, 'INVALID_REQUEST', 400],
    ['unknown time_in_force', { ...limit, time_in_force: 'gtd' }, 'INVALID_REQUEST', 400],
    [
      'post-only market',
      { ...limit, type: 'market', price: undefined, time_in_force: 'gtx' },
      'INVALID_REQUEST',
      400,
    ],
    ['bad client_order_id', { ...limit, client_order_id: 'has space' }, 'INVALID_REQUEST', 400],
    [
      'max_slippage of 1',
      { ...limit, type: 'market', price: undefined, max_slippage: '1' },
      'INVALID_REQUEST',
      400,
    ],
    ['not an object', ['x'], 'INVALID_REQUEST', 400],
    ['stop without trigger_price', { ...stop, trigger_price: undefined }, 'INVALID_REQUEST', 400],
    ['trigger_price on a limit order', { ...limit, trigger_price: '49000' }, 'INVALID_REQUEST', 400],
    ['trigger_price off the tick', { ...stop, trigger_price: '48000.05' }, 'INVALID_REQUEST', 400],
    ['zero trigger_price', { ...stop, trigger_price: '0' }, 'INVALID_REQUEST', 400],
    ['stop_market with a price', { ...stop, price: '48000' }, 'INVALID_REQUEST', 400],
    ['stop_limit without price', { ...stop, type: 'stop_limit' }, 'PRICE_REQUIRED', 400],
    ['conditional with time_in_force', { ...stop, time_in_force: 'gtc' }, 'INVALID_REQUEST', 400],
  ])('%s: %s', (_name, body, code, status) => {
    expect(refusal(body)).toEqual({ code, status });
  });
});

describe('nativeOrderCommand', () => {
  it('builds the same order.new command FAPI would send', () => {
    const input = parseNativeOrder({ ...limit, client_order_id: 'c-1', time_in_force: 'ioc' }, markets);
    const cmd = nativeOrderCommand(input, USER, '00000000-0000-4000-8000-000000000001');
    expect(cmd).toEqual({
      type: 'order.new',
      orderId: '00000000-0000-4000-8000-000000000001',
      clientOrderId: 'c-1',
      user: USER,
      symbol: 'BTCUSDT',
      side: 'BUY',
      orderType: 'LIMIT',
      timeInForce: 'IOC',
      quantity: '0.01',
      price: '50000',
      reduceOnly: false,
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      selfTradePreventionMode: 'EXPIRE_TAKER',
    });
  });

  it('generates a client order id when none is given', () => {
    const cmd = nativeOrderCommand(
      parseNativeOrder(limit, markets),
      USER,
      '00000000-0000-4000-8000-000000000002',
    );
    expect(cmd.clientOrderId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('lotQuantity', () => {
  it('floors to the lot, as risk does', () => {
    expect(lotQuantity(btc, new Money('0.0129')).toFixed()).toBe('0.012');
    expect(lotQuantity(btc, new Money('0.0009')).toFixed()).toBe('0');
  });
});

describe('nativeAlgoCommand', () => {
  it('builds the algo.new command FAPI POST /fapi/v1/algoOrder would send', () => {
    const input = parseNativeOrder(
      { ...stop, type: 'Take_Profit_Limit', price: '52100', trigger_price: '52000', client_order_id: 'tp-1' },
      markets,
    );
    expect(nativeAlgoCommand(input, USER)).toEqual({
      type: 'algo.new',
      clientAlgoId: 'tp-1',
      user: USER,
      symbol: 'BTCUSDT',
      side: 'SELL',
      orderType: 'TAKE_PROFIT',
      quantity: '0.01',
      price: '52100',
      triggerPrice: '52000',
      closePosition: false,
      reduceOnly: false,
      timeInForce: 'GTC',
      workingType: 'MARK_PRICE',
      priceProtect: false,
    });
    expect(() => nativeOrderCommand(input, USER, '00000000-0000-4000-8000-000000000003')).toThrow();
  });
});
