import { FapiError, FapiFields, type RawParams } from '@perp/contracts';
import { applySample, applyTrade, Money } from '@perp/domain';
import type { MarketAggTradeEntity, MarketTradeEntity } from '@perp/persistence';
import { BTC } from '../../markets/market.fixture';
import { depthJson, depthView, sortDepth } from './depth-view';
import { candleOf, priceKlineRow, tradeKlineRow } from './kline-views';
import {
  AGG_TRADES_PARAMS,
  checkAggTradesWindow,
  CONTINUOUS_KLINES_PARAMS,
  DEPTH_PARAMS,
  KLINES_PARAMS,
} from './market-params';
import { aggTradeView, publicTradeView } from './trade-views';

const T0 = Date.UTC(2026, 2, 16);

/** The FAPI error a call throws, as `[code, msg]`. */
function fapiError(call: () => unknown): [number, string] | undefined {
  try {
    call();
  } catch (e) {
    if (e instanceof FapiError) return [e.code, e.message];
    throw e;
  }
  return undefined;
}

describe('depth views', () => {
  const projected = {
    seq: 42,
    time: T0 + 5,
    bids: [
      ['99.9', '1'],
      ['100.10', '0.5'],
      ['100', '2.25'],
    ] as [string, string][],
    asks: [
      ['101.5', '3'],
      ['100.2', '0.001'],
    ] as [string, string][],
  };

  it('sorts best first in exact decimal order and renders at the market precisions', () => {
    expect(sortDepth(BTC, projected)).toEqual({
      seq: 42,
      time: T0 + 5,
      bids: [
        ['100.1', '0.500'],
        ['100.0', '2.250'],
        ['99.9', '1.000'],
      ],
      asks: [
        ['100.2', '0.001'],
        ['101.5', '3.000'],
      ],
      levelsJson: new Map(),
      answers: new Map(),
    });
  });

  it("answers Binance's shape, cut to the limit; an unprojected book is empty at lastUpdateId 0", () => {
    expect(depthView(sortDepth(BTC, projected), 1, T0 + 9)).toEqual({
      lastUpdateId: 42,
      E: T0 + 9,
      T: T0 + 5,
      bids: [['100.1', '0.500']],
      asks: [['100.2', '0.001']],
    });
    const empty = sortDepth(BTC, { seq: -1, time: 0, bids: [], asks: [] });
    expect(depthView(empty, 500, T0)).toEqual({ lastUpdateId: 0, E: T0, T: T0, bids: [], asks: [] });
  });

  it('serializes once per book and limit, the same JSON as the view', () => {
    const book = sortDepth(BTC, projected);
    for (const limit of [1, 5, 500])
      expect(JSON.parse(depthJson(book, limit, T0 + 9).toString())).toEqual(depthView(book, limit, T0 + 9));
    expect([...book.levelsJson.keys()]).toEqual([1, 5, 500]);
    expect(JSON.parse(depthJson(book, 1, T0 + 10).toString()).E).toBe(T0 + 10);
  });

  it('answers requests of one millisecond with the same bytes, a later one with its own time', () => {
    const book = sortDepth(BTC, projected);
    const first = depthJson(book, 5, T0 + 9);
    expect(depthJson(book, 5, T0 + 9)).toBe(first);
    expect(depthJson(book, 1, T0 + 9)).not.toBe(first);
    const later = depthJson(book, 5, T0 + 10);
    expect(JSON.parse(later.toString())).toEqual(depthView(book, 5, T0 + 10));
    expect(depthJson(book, 5, T0 + 10)).toBe(later);
  });
});

describe('trade views', () => {
  it('a public trade: integer id, precisions, the buyer is the maker when the taker sold', () => {
    const t: MarketTradeEntity = {
      symbol: 'BTCUSDT',
      id: 17,
      tradeId: '00000000-0000-4000-8000-000000000001',
      price: '50000.5',
      qty: '0.01',
      quoteQty: '500.005',
      takerSide: 'SELL',
      takerOrderId: 'o1',
      time: T0,
    };
    expect(publicTradeView(BTC, t)).toEqual({
      id: 17,
      price: '50000.5',
      qty: '0.010',
      quoteQty: '500.005',
      time: T0,
      isBuyerMaker: true,
    });
    expect(publicTradeView(BTC, { ...t, takerSide: 'BUY' }).isBuyerMaker).toBe(false);
  });

  it('an aggregate trade {a, p, q, f, l, T, m}', () => {
    const a: MarketAggTradeEntity = {
      symbol: 'BTCUSDT',
      id: 5,
      price: '50000',
      qty: '0.3',
      firstId: 5,
      lastId: 7,
      time: T0,
      buyerMaker: false,
      takerOrderId: 'o1',
    };
    expect(aggTradeView(BTC, a)).toEqual({ a: 5, p: '50000.0', q: '0.300', f: 5, l: 7, T: T0, m: false });
  });
});

describe('kline views', () => {
  const m = (v: string) => new Money(v);

  it('a last-price kline: 12 positions with real taker-buy volumes', () => {
    let c = applyTrade(undefined, '1m', { time: T0 + 1, price: m('100'), qty: m('0.5'), takerSide: 'BUY' });
    c = applyTrade(c, '1m', { time: T0 + 2, price: m('100.3'), qty: m('0.25'), takerSide: 'SELL' });
    expect(tradeKlineRow(BTC, c)).toEqual([
      T0,
      '100.0',
      '100.3',
      '100.0',
      '100.3',
      '0.750',
      T0 + 59_999,
      '75.0750',
      2,
      '0.500',
      '50.0000',
      '0',
    ]);
  });

  it('a price-series kline: OHLC at 8 decimals, the sample count, "0" in every volume position', () => {
    let c = applySample(undefined, '1h', T0, m('50000.123456789'));
    c = applySample(c, '1h', T0 + 1000, m('49999'));
    expect(priceKlineRow(c)).toEqual([
      T0,
      '50000.12345679',
      '50000.12345679',
      '49999.00000000',
      '49999.00000000',
      '0',
      T0 + 3_600_000 - 1,
      '0',
      2,
      '0',
      '0',
      '0',
    ]);
  });

  it('reads a stored candle back as the same candle', () => {
    const c = applyTrade(undefined, '5m', { time: T0, price: m('1.5'), qty: m('2'), takerSide: 'BUY' });
    const row = {
      symbol: 'BTCUSDT',
      series: 'last' as const,
      interval: '5m',
      openTime: c.openTime,
      closeTime: c.closeTime,
      open: '1.5',
      high: '1.5',
      low: '1.5',
      close: '1.5',
      volume: '2',
      quoteVolume: '3',
      count: 1,
      takerBuyVolume: '2',
      takerBuyQuoteVolume: '3',
    };
    expect(tradeKlineRow(BTC, candleOf(row))).toEqual(tradeKlineRow(BTC, c));
  });
});

// The route schemas, read one parameter at a time as the controllers do.
const depthLimit = (p: RawParams) => new FapiFields(DEPTH_PARAMS, p).get('limit');
const intervalParam = (p: RawParams) => new FapiFields(KLINES_PARAMS, p).get('interval');
const idParam = (p: RawParams) => new FapiFields(AGG_TRADES_PARAMS, p).get('fromId');
const perpetualOnly = (p: RawParams) => new FapiFields(CONTINUOUS_KLINES_PARAMS, p).get('contractType');
function aggTradesWindow(p: RawParams) {
  const f = new FapiFields(AGG_TRADES_PARAMS, p);
  const [startTime, endTime] = [f.get('startTime'), f.get('endTime')];
  checkAggTradesWindow(startTime, endTime);
  return { startTime, endTime };
}

describe('market-data parameters', () => {
  it('depth limit: the seven values of Binance, default 500, anything else -1100 with the range', () => {
    expect([5, 10, 20, 50, 100, 500, 1000].map((l) => depthLimit({ limit: String(l) }))).toEqual([
      5, 10, 20, 50, 100, 500, 1000,
    ]);
    expect(depthLimit({})).toBe(500);
    for (const limit of ['7', '0', '2000', '-5', 'ten', '5.0'])
      expect(fapiError(() => depthLimit({ limit }))).toEqual([
        -1100,
        "Illegal characters found in parameter 'limit'; legal range is '5, 10, 20, 50, 100, 500, 1000'.",
      ]);
  });

  it('interval: the 15 true buckets, case-sensitive; missing -1102, unknown -1120', () => {
    expect(intervalParam({ interval: '1M' })).toBe('1M');
    expect(intervalParam({ interval: '3m' })).toBe('3m');
    expect(fapiError(() => intervalParam({ interval: '2m' }))).toEqual([-1120, 'Invalid interval.']);
    expect(fapiError(() => intervalParam({ interval: '1H' }))?.[0]).toBe(-1120);
    expect(fapiError(() => intervalParam({}))?.[0]).toBe(-1102);
  });

  it('aggTrades: both times at most an hour apart (ccxt sends exactly one hour)', () => {
    expect(aggTradesWindow({ startTime: '0', endTime: '3600000' })).toEqual({
      startTime: 0,
      endTime: 3_600_000,
    });
    expect(aggTradesWindow({ startTime: '5' })).toEqual({ startTime: 5, endTime: undefined });
    expect(fapiError(() => aggTradesWindow({ startTime: '0', endTime: '3600001' }))).toEqual([
      -1130,
      'More than 1 hours between startTime and endTime.',
    ]);
    expect(fapiError(() => aggTradesWindow({ startTime: 'soon' }))?.[0]).toBe(-1100);
  });

  it('fromId: a non-negative integer; contractType: PERPETUAL only', () => {
    expect(idParam({ fromId: '12' })).toBe(12);
    expect(idParam({})).toBeUndefined();
    expect(fapiError(() => idParam({ fromId: 'x' }))?.[0]).toBe(-1100);
    expect(fapiError(() => idParam({ fromId: '-1' }))?.[0]).toBe(-1102);
    expect(fapiError(() => perpetualOnly({ contractType: 'PERPETUAL' }))).toBeUndefined();
    expect(fapiError(() => perpetualOnly({ contractType: 'CURRENT_QUARTER' }))?.[0]).toBe(-1130);
    expect(fapiError(() => perpetualOnly({}))?.[0]).toBe(-1102);
  });
});
