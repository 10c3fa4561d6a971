import { z } from 'zod';

// Why this module is long: one declarative schema per Binance message, kept together as the document's source.

/**
 * The Binance USDⓈ-M compatible stream messages as zod schemas: the AsyncAPI document of the
 * WebSocket API is generated from them, the payload builders are typed by them (market-payloads.ts,
 * user-payloads.ts) and the stream tests parse live frames with them.
 */

/** The type of a message a payload builder returns. */
export type Msg<T extends z.ZodType> = z.output<T>;

const dec = z.string().regex(/^-?\d+(\.\d+)?$/);
const ms = z.number().int().nonnegative();
const side = z.enum(['BUY', 'SELL']);
const level = z.tuple([dec, dec]);
const meta = <T extends z.ZodType>(schema: T, id: string, description: string) =>
  schema.meta({ id, title: id, description });

export const TradeEvent = meta(
  z.object({
    e: z.literal('trade'),
    E: ms,
    T: ms,
    s: z.string(),
    t: z.number().int(),
    p: dec,
    q: dec,
    X: z.literal('MARKET'),
    m: z.boolean(),
  }),
  'TradeEvent',
  '`<symbol>@trade`: one fill; `t` is the trade id REST trades shows, `m` true when the buyer was the maker.',
);

export const AggTradeEvent = meta(
  z.object({
    e: z.literal('aggTrade'),
    E: ms,
    s: z.string(),
    a: z.number().int(),
    p: dec,
    q: dec,
    f: z.number().int(),
    l: z.number().int(),
    T: ms,
    m: z.boolean(),
  }),
  'AggTradeEvent',
  '`<symbol>@aggTrade`: fills of one taker order at one price and time, as REST aggTrades aggregates them.',
);

export const BookTickerEvent = meta(
  z.object({
    e: z.literal('bookTicker'),
    u: z.number().int(),
    E: ms,
    T: ms,
    s: z.string(),
    b: dec,
    B: dec,
    a: dec,
    A: dec,
  }),
  'BookTickerEvent',
  '`<symbol>@bookTicker` and `!bookTicker`: the best bid and ask after a change; `u` is the book sequence.',
);

export const DepthUpdateEvent = meta(
  z.object({
    e: z.literal('depthUpdate'),
    E: ms,
    T: ms,
    s: z.string(),
    U: z.number().int(),
    u: z.number().int(),
    pu: z.number().int(),
    b: z.array(level),
    a: z.array(level),
  }),
  'DepthUpdateEvent',
  'Diff depth `<symbol>@depth[@100ms|@500ms]`: levels changed in the window (quantity 0: gone), U/u/pu ' +
    'on the book sequence REST depth `lastUpdateId` counts. Partial depth `<symbol>@depth<5|10|20>[@speed]`: ' +
    'the best N levels, same shape.',
);

export const MarkPriceEvent = meta(
  z.object({
    e: z.literal('markPriceUpdate'),
    E: ms,
    s: z.string(),
    p: dec,
    i: dec,
    P: dec,
    r: dec,
    T: ms,
  }),
  'MarkPriceEvent',
  '`<symbol>@markPrice[@1s]` (3 s or 1 s) and the rows of `!markPrice@arr[@1s]`.',
);

const kline = z.object({
  t: ms,
  T: ms,
  i: z.string(),
  f: z.number().int(),
  L: z.number().int(),
  o: dec,
  c: dec,
  h: dec,
  l: dec,
  v: dec,
  n: z.number().int(),
  x: z.boolean(),
  q: dec,
  V: dec,
  Q: dec,
  B: dec,
});

export const KlineEvent = meta(
  z.object({ e: z.literal('kline'), E: ms, s: z.string(), k: kline.extend({ s: z.string() }) }),
  'KlineEvent',
  '`<symbol>@kline_<interval>` (all 15 intervals): the current candle as REST klines shows it.',
);

export const ContinuousKlineEvent = meta(
  z.object({
    e: z.literal('continuous_kline'),
    E: ms,
    ps: z.string(),
    ct: z.literal('PERPETUAL'),
    k: kline,
  }),
  'ContinuousKlineEvent',
  '`<pair>_perpetual@continuousKline_<interval>`.',
);

export const TickerEvent = meta(
  z.object({
    e: z.literal('24hrTicker'),
    E: ms,
    s: z.string(),
    p: dec,
    P: dec,
    w: dec,
    c: dec,
    Q: dec,
    o: dec,
    h: dec,
    l: dec,
    v: dec,
    q: dec,
    O: ms,
    C: ms,
    F: z.number().int(),
    L: z.number().int(),
    n: z.number().int(),
  }),
  'TickerEvent',
  '`<symbol>@ticker` and the rows of `!ticker@arr` (only tickers that changed): REST ticker/24hr.',
);

export const MiniTickerEvent = meta(
  z.object({
    e: z.literal('24hrMiniTicker'),
    E: ms,
    s: z.string(),
    c: dec,
    o: dec,
    h: dec,
    l: dec,
    v: dec,
    q: dec,
  }),
  'MiniTickerEvent',
  '`<symbol>@miniTicker` and the rows of `!miniTicker@arr`.',
);

export const ForceOrderEvent = meta(
  z.object({
    e: z.literal('forceOrder'),
    E: ms,
    o: z.object({
      s: z.string(),
      S: side,
      o: z.literal('LIMIT'),
      f: z.literal('IOC'),
      q: dec,
      p: dec,
      ap: dec,
      X: z.enum(['FILLED', 'EXPIRED']),
      l: dec,
      z: dec,
      T: ms,
    }),
  }),
  'ForceOrderEvent',
  '`<symbol>@forceOrder` and `!forceOrder@arr`: a liquidation once complete (sent as it happens, not as a ' +
    '1 s snapshot); ADL closes are not liquidation orders and do not appear.',
);

export const MARKET_EVENTS = [
  TradeEvent,
  AggTradeEvent,
  BookTickerEvent,
  DepthUpdateEvent,
  MarkPriceEvent,
  KlineEvent,
  ContinuousKlineEvent,
  TickerEvent,
  MiniTickerEvent,
  ForceOrderEvent,
] as const;

export const OrderTradeUpdate = meta(
  z.object({
    e: z.literal('ORDER_TRADE_UPDATE'),
    E: ms,
    T: ms,
    o: z.object({
      s: z.string(),
      c: z.string(),
      S: side,
      o: z.string(),
      f: z.string(),
      q: dec,
      p: dec,
      ap: dec,
      sp: dec,
      x: z.enum(['NEW', 'TRADE', 'CANCELED', 'REJECTED', 'AMENDMENT']),
      X: z.enum(['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED']),
      i: z.string(),
      l: dec,
      z: dec,
      L: dec,
      N: z.string(),
      n: dec,
      T: ms,
      t: z
        .union([z.string(), z.number().int()])
        .meta({ description: 'trade id (a UUID) of a fill, 0 otherwise' }),
      b: dec,
      a: dec,
      m: z.boolean(),
      R: z.boolean(),
      wt: z.string(),
      ot: z.string(),
      ps: z.literal('BOTH'),
      cp: z.boolean(),
      rp: dec,
      pP: z.boolean(),
      si: z.number().int(),
      ss: z.number().int(),
      V: z.string(),
      pm: z.string(),
      gtd: ms,
    }),
  }),
  'OrderTradeUpdate',
  'An order after each change; a fill (x = TRADE) carries its trade.',
);

export const ACCOUNT_UPDATE_REASONS = ['ORDER', 'FUNDING_FEE', 'DEPOSIT', 'ADL', 'INSURANCE_CLEAR'] as const;

export const AccountUpdate = meta(
  z.object({
    e: z.literal('ACCOUNT_UPDATE'),
    E: ms,
    T: ms,
    a: z.object({
      m: z.enum(ACCOUNT_UPDATE_REASONS),
      B: z.array(z.object({ a: z.string(), wb: dec, cw: dec, bc: dec })),
      P: z.array(
        z.object({
          s: z.string(),
          pa: dec,
          ep: dec,
          bep: dec,
          cr: dec,
          up: dec,
          mt: z.string(),
          iw: dec,
          ps: z.literal('BOTH'),
        }),
      ),
    }),
  }),
  'AccountUpdate',
  'Balances and positions an input moved, with the reason: ORDER (a fill), FUNDING_FEE, DEPOSIT, ADL (an ' +
    'auto-deleveraging close), INSURANCE_CLEAR (the liquidation clearance fee). Placing or canceling an order ' +
    'sends none.',
);

export const AccountConfigUpdate = meta(
  z.object({
    e: z.literal('ACCOUNT_CONFIG_UPDATE'),
    E: ms,
    T: ms,
    ac: z.object({ s: z.string(), l: z.number().int().positive() }),
  }),
  'AccountConfigUpdate',
  "A symbol's leverage changed (setting the value it already has sends nothing).",
);

export const MarginCall = meta(
  z.object({
    e: z.literal('MARGIN_CALL'),
    E: ms,
    cw: dec,
    p: z.array(
      z.object({
        s: z.string(),
        ps: z.enum(['LONG', 'SHORT']),
        pa: dec,
        mt: z.enum(['CROSSED', 'ISOLATED']),
        iw: dec,
        mp: dec,
        up: dec,
        mm: dec,
      }),
    ),
  }),
  'MarginCall',
  'The margin ratio reached the margin-call level: the cross wallet and the positions at risk.',
);

export const AlgoUpdate = meta(
  z.object({
    e: z.literal('ALGO_UPDATE'),
    T: ms,
    E: ms,
    o: z.object({
      caid: z.string(),
      aid: z.number().int(),
      at: z.literal('CONDITIONAL'),
      o: z.string(),
      s: z.string(),
      S: side,
      ps: z.literal('BOTH'),
      f: z.string(),
      q: dec,
      X: z.enum(['NEW', 'TRIGGERED', 'FINISHED', 'CANCELED', 'EXPIRED', 'FAILED']),
      ai: z.string().meta({ description: 'the order it fired as, "" before' }),
      ap: dec,
      aq: dec,
      act: z
        .string()
        .meta({ description: 'type of the fired order, "0" when this update does not carry it' }),
      tp: dec,
      p: dec,
      V: z.string(),
      wt: z.string(),
      pm: z.string(),
      cp: z.boolean(),
      pP: z.boolean(),
      R: z.boolean(),
      tt: ms,
      gtd: ms,
      rm: z.string(),
    }),
  }),
  'AlgoUpdate',
  'An algo (conditional) order after each change: placed, triggered, finished, canceled, expired, failed.',
);

export const ListenKeyExpired = meta(
  z.object({ e: z.literal('listenKeyExpired'), E: ms, listenKey: z.string() }),
  'ListenKeyExpired',
  'The listen key expired or was deleted: the connection closes with 4001 after it.',
);

export const USER_EVENTS = [
  OrderTradeUpdate,
  AccountUpdate,
  AccountConfigUpdate,
  MarginCall,
  AlgoUpdate,
  ListenKeyExpired,
] as const;

const requestId = z.union([z.number().int().nonnegative(), z.string().max(36), z.null()]);

export const StreamRequest = meta(
  z.object({
    method: z.enum(['SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY']),
    params: z.array(z.union([z.string(), z.boolean()])).optional(),
    id: requestId,
  }),
  'StreamRequest',
  'Live subscription requests on `/ws…` and `/stream…` (a listen key may be SUBSCRIBEd on `/ws`); at most 10 per second.',
);

export const StreamResult = meta(
  z.object({ result: z.union([z.null(), z.boolean(), z.array(z.string())]), id: requestId }),
  'StreamResult',
  'The answer of a request: null, the `combined` property, or the subscriptions.',
);

export const StreamError = meta(
  z.object({
    error: z.object({
      code: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
      msg: z.string(),
    }),
    id: requestId,
  }),
  'StreamError',
  'A refused request: 0 unknown property, 1 invalid value type, 2 invalid request (bad stream, too many ' +
    'streams, invalid listen key), 3 invalid JSON.',
);

export const CombinedFrame = meta(
  z.object({ stream: z.string(), data: z.unknown() }),
  'CombinedFrame',
  'On `/stream…` (or after SET_PROPERTY combined true) every event is wrapped with the stream name as sent.',
);
