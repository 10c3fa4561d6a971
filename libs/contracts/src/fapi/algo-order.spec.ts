import { FapiError } from '../errors/exceptions';
import { parseAlgoOrder } from './algo-order';

const NOW = 1_700_000_000_000;
const base = { symbol: 'BTCUSDT', side: 'BUY', type: 'STOP_MARKET', triggerPrice: '51000', quantity: '0.01' };
const code = (params: Record<string, string>) => {
  try {
    parseAlgoOrder({ ...base, ...params }, NOW);
  } catch (e) {
    return (e as FapiError).code;
  }
  return 'ok';
};

describe('parseAlgoOrder', () => {
  it('builds the risk command: aliases resolved, defaults filled, a client id generated', () => {
    const cmd = parseAlgoOrder(
      { ...base, type: 'STOP_LIMIT', price: '51100', stopPrice: '51000', triggerPrice: '' },
      NOW,
    );
    expect(cmd).toMatchObject({
      type: 'algo.new',
      orderType: 'STOP',
      triggerPrice: '51000',
      price: '51100',
      quantity: '0.01',
      timeInForce: 'GTC',
      workingType: 'CONTRACT_PRICE',
      closePosition: false,
      reduceOnly: false,
      priceProtect: false,
    });
    expect(cmd.clientAlgoId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('trailing: callbackRate and activationPrice (ccxt) or activatePrice, no triggerPrice', () => {
    const cmd = parseAlgoOrder(
      {
        symbol: 'BTCUSDT',
        side: 'SELL',
        type: 'TRAILING_STOP_MARKET',
        callbackRate: '2',
        activationPrice: '60000',
        quantity: '1',
      },
      NOW,
    );
    expect(cmd).toMatchObject({
      orderType: 'TRAILING_STOP_MARKET',
      callbackRate: '2',
      activatePrice: '60000',
    });
    expect(cmd).not.toHaveProperty('triggerPrice');
  });

  it('closePosition: no quantity, only on the MARKET forms, never with reduceOnly', () => {
    expect(parseAlgoOrder({ ...base, quantity: '', closePosition: 'true' }, NOW)).toMatchObject({
      closePosition: true,
    });
    expect(code({ closePosition: 'true' })).toBe(-1106);
    expect(code({ quantity: '', closePosition: 'true', reduceOnly: 'true' })).toBe(-1106);
    expect(code({ quantity: '', closePosition: 'true', type: 'TAKE_PROFIT', price: '1' })).toBe(-1106);
  });

  it('GTD needs goodTillDate at least 600 s ahead', () => {
    expect(code({ timeInForce: 'GTD', goodTillDate: String(NOW + 600_000) })).toBe('ok');
    expect(code({ timeInForce: 'GTD', goodTillDate: String(NOW + 599_999) })).toBe(-1100);
    expect(code({ timeInForce: 'GTD' })).toBe(-1102);
    expect(code({ timeInForce: 'IOC' })).toBe(-1102);
  });

  it.each([
    [{ quantity: 'abc' }, -1100],
    [{ triggerPrice: '0' }, -1100],
    [{ type: 'TRAILING_STOP_MARKET', callbackRate: '0.05' }, -1100],
    [{ type: 'TRAILING_STOP_MARKET', callbackRate: '10.01' }, -1100],
    [{ triggerPrice: '' }, -1102],
    [{ quantity: '' }, -1102],
    [{ type: 'TAKE_PROFIT' }, -1102],
    [{ type: 'TRAILING_STOP_MARKET' }, -1102],
    [{ algoType: 'TWAP' }, -1130],
    [{ side: 'LONG' }, -1130],
    [{ type: 'MARKET' }, -1130],
    [{ positionSide: 'SHORT' }, -1130],
  ] as [Record<string, string>, number][])('%j answers %i', (params, expected) => {
    expect(code(params)).toBe(expected);
  });
});
