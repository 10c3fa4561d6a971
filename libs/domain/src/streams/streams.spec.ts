import { DeltaWindow, LocalBook, parseStreamName, streamKey } from './index';

describe('parseStreamName', () => {
  it.each([
    ['btcusdt@aggTrade', 'BTCUSDT@aggTrade'],
    ['BTC-USD@trade', 'BTCUSDT@trade'],
    ['btcusdt@bookTicker', 'BTCUSDT@bookTicker'],
    ['!bookTicker', '!bookTicker'],
    ['btcusdt@depth5', 'BTCUSDT@depth5@250ms'],
    ['btcusdt@depth20@100ms', 'BTCUSDT@depth20@100ms'],
    ['btcusdt@depth@500ms', 'BTCUSDT@depth@500ms'],
    ['btcusdt@depth', 'BTCUSDT@depth@250ms'],
    ['btcusdt@markPrice', 'BTCUSDT@markPrice'],
    ['btcusdt@markPrice@1s', 'BTCUSDT@markPrice@1s'],
    ['!markPrice@arr@1s', '!markPrice@arr@1s'],
    ['btcusdt@kline_1M', 'BTCUSDT@kline_1M'],
    ['btc_usdt@kline_1m', 'BTCUSDT@kline_1m'],
    ['btcusdt_perpetual@continuousKline_1h', 'BTCUSDT_perpetual@continuousKline_1h'],
    ['btcusdt@miniTicker', 'BTCUSDT@miniTicker'],
    ['!miniTicker@arr', '!miniTicker@arr'],
    ['!ticker@arr', '!ticker@arr'],
    ['btcusdt@ticker', 'BTCUSDT@ticker'],
    ['btcusdt@forceOrder', 'BTCUSDT@forceOrder'],
  ])('%s is %s', (name, key) => {
    const s = parseStreamName(name);
    expect(s && streamKey(s)).toBe(key);
  });

  it.each([
    'btcusdt',
    '@trade',
    'btcusdt@depth15',
    'btcusdt@depth@200ms',
    'btcusdt@kline_2m',
    'btcusdt@continuousKline_1m',
    'btcusdt_quarter@continuousKline_1m',
    'btcusdt@nothing',
    '!ticker',
  ])('%s is no stream', (name) => expect(parseStreamName(name)).toBeUndefined());
});

describe('DeltaWindow', () => {
  it('merges a window: U of the first, u and levels of the last, pu of the first', () => {
    const w = new DeltaWindow();
    expect(w.take()).toBeUndefined();
    w.add({ firstSeq: 5, seq: 6, prevSeq: 3, bids: [['100.0', '1.000']], asks: [] });
    w.add({
      firstSeq: 8,
      seq: 9,
      prevSeq: 6,
      bids: [
        ['100.0', '0.000'],
        ['99.0', '2.000'],
      ],
      asks: [['101.0', '1.000']],
    });
    w.add({ firstSeq: 8, seq: 9, prevSeq: 6, bids: [['98.0', '1.000']], asks: [] }); // redelivered
    expect(w.take()).toEqual({
      U: 5,
      u: 9,
      pu: 3,
      b: [
        ['100.0', '0.000'],
        ['99.0', '2.000'],
      ],
      a: [['101.0', '1.000']],
    });
    expect(w.empty).toBe(true);
  });
});

describe('LocalBook (Binance procedure)', () => {
  const e = (U: number, u: number, pu: number, b: [string, string][] = [], a: [string, string][] = []) => ({
    U,
    u,
    pu,
    b,
    a,
  });

  it('buffers until the snapshot, drops what it holds, applies the chain after', () => {
    const book = new LocalBook();
    expect(book.onEvent(e(1, 2, 0, [['100', '1']]))).toBe('buffered');
    expect(book.onEvent(e(3, 4, 2, [['99', '1']]))).toBe('buffered');
    expect(book.onEvent(e(5, 6, 4, [], [['101', '2']]))).toBe('buffered');
    expect(
      book.onSnapshot({
        lastUpdateId: 4,
        bids: [
          ['100', '1'],
          ['99', '1'],
        ],
        asks: [],
      }),
    ).toBe(true);
    expect(book.onEvent(e(7, 8, 6, [['100', '0']]))).toBe('applied');
    expect(book.top()).toEqual({ lastUpdateId: 8, bids: [['99', '1']], asks: [['101', '2']] });
  });

  it('reports a gap when pu is not the previous u, or the first event starts after the snapshot', () => {
    const book = new LocalBook();
    book.onSnapshot({ lastUpdateId: 4, bids: [], asks: [] });
    expect(book.onEvent(e(3, 3, 1))).toBe('dropped');
    expect(book.onEvent(e(5, 6, 4))).toBe('applied'); // pu = lastUpdateId: the next one
    expect(book.onEvent(e(9, 10, 8))).toBe('gap');
    const late = new LocalBook();
    late.onEvent(e(6, 7, 5)); // the event with u = 5 was missed
    expect(late.onSnapshot({ lastUpdateId: 4, bids: [], asks: [] })).toBe(false);
  });
});
