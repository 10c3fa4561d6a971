import { FapiError } from '../errors/exceptions';
import { parseNewOrder } from './new-order';

const base = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '50000' };

function code(params: Record<string, unknown>): number | undefined {
  try {
    parseNewOrder(params);
    return undefined;
  } catch (e) {
    if (e instanceof FapiError) return e.code;
    throw e;
  }
}

describe('parseNewOrder', () => {
  it('parses a LIMIT order with defaults', () => {
    const o = parseNewOrder(base);
    expect(o).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      reduceOnly: false,
      positionSide: 'BOTH',
      workingType: 'CONTRACT_PRICE',
      newOrderRespType: 'ACK',
      selfTradePreventionMode: 'EXPIRE_TAKER',
    });
    expect(o.quantity?.toString()).toBe('0.01');
    expect(o.clientOrderId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['STOP_LIMIT', 'STOP'],
    ['TAKE_PROFIT_LIMIT', 'TAKE_PROFIT'],
  ])('alias %s is %s', (alias, type) => {
    expect(parseNewOrder({ ...base, type: alias, stopPrice: '49000' }).type).toBe(type);
  });

  it.each([
    ['both quantity and quoteOrderQty', { ...base, quoteOrderQty: '100' }, -1106],
    ['no quantity', { ...base, quantity: undefined }, -1102],
    ['LIMIT without price', { ...base, price: undefined }, -1102],
    ['STOP without stopPrice', { ...base, type: 'STOP' }, -1102],
    ['STOP_MARKET without stopPrice', { ...base, type: 'STOP_MARKET', price: undefined }, -1102],
    ['unparseable quantity', { ...base, quantity: 'abc' }, -1100],
    ['exponent quantity', { ...base, quantity: '1e3' }, -1100],
    ['unparseable price', { ...base, price: '５０' }, -1100],
    ['price of 1,001 digits', { ...base, price: '1'.repeat(1_001) }, -1100],
    ['bad clientOrderId chars', { ...base, newClientOrderId: 'a b' }, -1100],
    ['clientOrderId of 37 chars', { ...base, newClientOrderId: 'x'.repeat(37) }, -1100],
    ['unknown side', { ...base, side: 'HOLD' }, -1130],
    ['lowercase side', { ...base, side: 'buy' }, -1130],
    ['unknown type', { ...base, type: 'ICEBERG' }, -1130],
    ['trailing stop on /order', { ...base, type: 'TRAILING_STOP_MARKET' }, -1130],
    ['bad positionSide', { ...base, positionSide: 'UP' }, -1130],
    ['unsupported timeInForce', { ...base, timeInForce: 'GTD' }, -1102],
    ['GTX on MARKET', { ...base, type: 'MARKET', price: undefined, timeInForce: 'GTX' }, -1102],
    ['bad reduceOnly', { ...base, reduceOnly: 'yes' }, -1102],
    ['duplicated symbol', { ...base, symbol: ['BTCUSDT', 'ETHUSDT'] }, -1102],
    ['object quantity', { ...base, quantity: { $gt: 1 } }, -1102],
    ['missing symbol', { ...base, symbol: undefined }, -1102],
    ['missing side', { ...base, side: undefined }, -1102],
  ])('%s gives %d', (_name, params, expected) => {
    expect(code(params)).toBe(expected);
  });

  it.each([
    [true, true],
    ['true', true],
    [1, true],
    ['1', true],
    [false, false],
    ['false', false],
    [0, false],
    ['0', false],
    ['', false],
  ])('reduceOnly %p is %p', (value, expected) => {
    expect(parseNewOrder({ ...base, reduceOnly: value }).reduceOnly).toBe(expected);
  });

  it.each(['LONG', 'SHORT', 'BOTH'])('positionSide %s is treated as BOTH', (ps) => {
    expect(parseNewOrder({ ...base, positionSide: ps }).positionSide).toBe('BOTH');
  });

  it('keeps a valid client order id and accepts quoteOrderQty alone', () => {
    const o = parseNewOrder({
      ...base,
      quantity: undefined,
      quoteOrderQty: '100',
      newClientOrderId: 'my_bot.order-1',
    });
    expect(o.clientOrderId).toBe('my_bot.order-1');
    expect(o.quoteOrderQty?.toString()).toBe('100');
  });
});
