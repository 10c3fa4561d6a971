import { plainParams } from './public-read-lanes';

describe('plainParams (which queries a fast lane answers itself)', () => {
  const names = new Set(['symbol', 'limit']);

  it('reads plain, known, single pairs as Fastify would (values as text, empty kept)', () => {
    expect({ ...plainParams('', names) }).toEqual({});
    expect({ ...plainParams('symbol=BTCUSDT&limit=100', names) }).toEqual({
      symbol: 'BTCUSDT',
      limit: '100',
    });
    expect({ ...plainParams('symbol=BTC-USD', names) }).toEqual({ symbol: 'BTC-USD' });
    expect({ ...plainParams('symbol=', names) }).toEqual({ symbol: '' });
  });

  it('declines what needs decoding, is unknown, repeated or without a value: Nest answers those', () => {
    for (const q of [
      'symbol=btc%5Fusdt',
      'symbol=BTC+USDT',
      'symbol=BTCUSDT&recvWindow=5000',
      'symbol=BTCUSDT&symbol=ETHUSDT',
      'symbol',
      'symbol=BTCUSDT&',
      '__proto__=1',
    ])
      expect(plainParams(q, names)).toBeUndefined();
  });
});
