import { normalizeSymbol } from './normalize-symbol';

describe('normalizeSymbol', () => {
  it.each([
    ['BTCUSDT', 'BTCUSDT'],
    ['btcusdt', 'BTCUSDT'],
    ['BTC-USD', 'BTCUSDT'],
    ['btc-usd', 'BTCUSDT'],
    ['BTC/USDT', 'BTCUSDT'],
    ['BTC_USDT', 'BTCUSDT'],
    ['eth_usd', 'ETHUSDT'],
    ['SOL-USDT', 'SOLUSDT'],
    ['BTCUSDC', 'BTCUSDC'],
    ['', ''],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeSymbol(input)).toBe(expected);
  });

  it('strips every separator, not only the first', () => {
    expect(normalizeSymbol('b-t/c_usd')).toBe('BTCUSDT');
  });
});
