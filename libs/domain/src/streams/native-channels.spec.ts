import { parseNativeChannel, streamKey } from './index';

describe('parseNativeChannel', () => {
  it.each([
    ['ticker:BTCUSDT', 'BTCUSDT@ticker'],
    ['ticker:btc-usd', 'BTCUSDT@ticker'],
    ['TICKER:BTC/USDT', 'BTCUSDT@ticker'],
    ['trades:btc_usdt', 'BTCUSDT@trade'],
    ['orderbook:BTC-USDT', 'BTCUSDT@depth@100ms'],
    ['kline:btcusdt:1m', 'BTCUSDT@kline_1m'],
    ['kline:BTC-USD:1M', 'BTCUSDT@kline_1M'],
    ['markPrice:eth-usd', 'ETHUSDT@markPrice@1s'],
    ['markprice:ETHUSDT', 'ETHUSDT@markPrice@1s'],
  ])('%s reads %s', (name, key) => {
    const c = parseNativeChannel(name);
    expect(c?.scope === 'public' && streamKey(c.stream)).toBe(key);
  });

  it.each([
    ['orders', 'orders'],
    ['Positions', 'positions'],
    ['balances', 'balances'],
    ['algoOrders', 'algoOrders'],
  ])('%s is the private %s channel', (name, kind) => {
    expect(parseNativeChannel(name)).toEqual({ scope: 'private', kind });
  });

  it.each([
    '',
    'ticker',
    'ticker:',
    'ticker:BTCUSDT:1m',
    'kline:BTCUSDT',
    'kline:BTCUSDT:7m',
    'kline:BTCUSDT:1m:x',
    'orders:BTCUSDT',
    'depth:BTCUSDT',
    'ticker:BTC USDT',
    'ticker:BTC@USDT',
  ])('%p is no channel', (name) => {
    expect(parseNativeChannel(name)).toBeUndefined();
  });
});
