import { algoOrderRecord, FAPI_AUTH_ERRORS, FAPI_ERRORS, orderRecord } from '@perp/contracts';
import { z } from 'zod';

// Response records of FAPI, for the reference (the views in fapi/ build them; the OpenAPI e2e test
// checks live answers against these schemas, so a view that changes shape fails it).

const dec = (description?: string) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .meta(description ? { description } : {});
const ms = (description?: string) =>
  z
    .number()
    .int()
    .meta(description ? { description } : {});

export const FapiErrorBody = z
  .object({
    code: z.number().int().meta({ description: 'Negative Binance-style code' }),
    msg: z.string(),
  })
  .meta({
    id: 'FapiError',
    description: `Business error envelope. Codes: ${Object.values(FAPI_ERRORS)
      .map((e) => e.code)
      .join(', ')}.`,
  });

export const FapiAuthErrorBody = z
  .object({
    success: z.literal(false),
    data: z.null(),
    error: z.object({
      code: z.enum(Object.keys(FAPI_AUTH_ERRORS) as [string, ...string[]]),
      message: z.string(),
    }),
    timestamp: z.number().int().meta({ description: 'Seconds since the epoch' }),
  })
  .meta({ id: 'FapiAuthError', description: 'Authentication error envelope (API key, IP, signature).' });

export const FapiOrder = orderRecord.omit({ user: true }).meta({
  id: 'FapiOrder',
  description: 'An order (spec: Order record), as every order endpoint answers it.',
});

export const FapiAlgoOrder = algoOrderRecord.omit({ user: true, reason: true }).meta({
  id: 'FapiAlgoOrder',
  description:
    'An algo (conditional) order (spec: Algo order record); actualOrderId is the order it fired as ("" before).',
});

export const FapiAlgoCancel = z.object({
  algoId: z.number().int(),
  clientAlgoId: z.string(),
  code: z.literal('200'),
  msg: z.literal('success'),
});

export const FapiBatchResult = z
  .array(z.union([FapiOrder, FapiErrorBody]))
  .meta({ description: 'One entry per request entry, in order: the order, or its `{code, msg}`.' });

export const PublicTrade = z
  .object({
    id: z.number().int(),
    price: dec(),
    qty: dec(),
    quoteQty: dec(),
    time: ms(),
    isBuyerMaker: z.boolean(),
  })
  .meta({ id: 'PublicTrade' });

export const AggTrade = z
  .object({
    a: z.number().int().meta({ description: 'Aggregate trade id' }),
    p: dec('Price'),
    q: dec('Quantity'),
    f: z.number().int().meta({ description: 'First trade id' }),
    l: z.number().int().meta({ description: 'Last trade id' }),
    T: ms('Time'),
    m: z.boolean().meta({ description: 'The buyer was the maker' }),
  })
  .meta({ id: 'AggTrade' });

export const UserTrade = z
  .object({
    symbol: z.string(),
    id: z.string(),
    orderId: z.string(),
    side: z.enum(['BUY', 'SELL']),
    price: dec(),
    qty: dec(),
    realizedPnl: dec(),
    quoteQty: dec(),
    commission: dec(),
    commissionAsset: z.string(),
    time: ms(),
    positionSide: z.literal('BOTH'),
    maker: z.boolean(),
    buyer: z.boolean(),
  })
  .meta({ id: 'UserTrade' });

export const KlineRow = z
  .tuple([
    ms('Open time'),
    dec('Open'),
    dec('High'),
    dec('Low'),
    dec('Close'),
    dec('Volume (base)'),
    ms('Close time'),
    dec('Quote volume'),
    z.number().int().meta({ description: 'Number of trades (samples for price series)' }),
    dec('Taker buy base volume'),
    dec('Taker buy quote volume'),
    dec('Ignore'),
  ])
  .meta({ id: 'KlineRow', description: 'One candle, as an array (Binance).' });

const level = z.tuple([dec('Price'), dec('Quantity')]);
export const Depth = z
  .object({
    lastUpdateId: z.number().int().meta({ description: 'Engine book sequence' }),
    E: ms('Message time'),
    T: ms('Transaction time'),
    bids: z.array(level),
    asks: z.array(level),
  })
  .meta({ id: 'Depth' });

export const Ticker24h = z
  .object({
    symbol: z.string(),
    priceChange: dec(),
    priceChangePercent: dec(),
    weightedAvgPrice: dec(),
    lastPrice: dec(),
    lastQty: dec(),
    openPrice: dec(),
    highPrice: dec(),
    lowPrice: dec(),
    volume: dec(),
    quoteVolume: dec(),
    openTime: ms(),
    closeTime: ms(),
    firstId: ms('Time of the first trade of the window'),
    lastId: ms('Time of the last trade of the window'),
    count: z.number().int(),
  })
  .meta({ id: 'Ticker24h' });

export const PriceTicker = z
  .object({ symbol: z.string(), price: dec(), time: ms() })
  .meta({ id: 'PriceTicker' });

export const BookTicker = z
  .object({
    symbol: z.string(),
    bidPrice: dec(),
    bidQty: dec(),
    askPrice: dec(),
    askQty: dec(),
    time: ms(),
    lastUpdateId: z.number().int(),
  })
  .meta({ id: 'BookTicker' });

export const PremiumIndex = z
  .object({
    symbol: z.string(),
    markPrice: dec(),
    indexPrice: dec(),
    estimatedSettlePrice: dec(),
    lastFundingRate: dec(),
    interestRate: dec(),
    nextFundingTime: ms(),
    time: ms(),
  })
  .meta({ id: 'PremiumIndex' });

export const FundingRate = z
  .object({ symbol: z.string(), fundingRate: dec(), fundingTime: ms(), markPrice: dec() })
  .meta({ id: 'FundingRate' });

export const OpenInterest = z
  .object({ symbol: z.string(), openInterest: dec(), time: ms() })
  .meta({ id: 'OpenInterest' });

/** With `symbol` one record, without it every market's. */
export const oneOrAll = <T extends z.ZodType>(record: T) => z.union([record, z.array(record)]);

export const Success = z.object({ code: z.literal(200), msg: z.string() });
export const Empty = z.object({}).meta({ description: 'An empty object' });
/** A record whose fields are listed in the README of its folder (not yet a schema of its own). */
export const AnyRecord = z.record(z.string(), z.unknown());
