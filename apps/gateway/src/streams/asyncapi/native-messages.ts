import { z } from 'zod';
import { NativeConditionalOrder, NativeOrder } from '../../openapi/native-responses';

/**
 * The native WebSocket API (`/api/v1/ws`) as zod schemas: requests, control frames and the data of
 * each channel. The AsyncAPI document is generated from them and the tests parse live frames with
 * them; orders and algo orders reuse the REST records' schemas (the same views render both).
 */

const dec = z.string().regex(/^-?\d+(\.\d+)?$/);
const ms = z.number().int().nonnegative();
const level = z.tuple([dec, dec]);
const id = z.union([z.number().int().nonnegative(), z.string().max(64)]).optional();
const meta = <T extends z.ZodType>(schema: T, name: string, description: string) =>
  schema.meta({ id: name, title: name, description });

export const NativeRequest = meta(
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('subscribe'), channels: z.array(z.string()).min(1).max(100), id }),
    z.object({ op: z.literal('unsubscribe'), channels: z.array(z.string()).min(1).max(100), id }),
    z.object({ op: z.literal('auth'), token: z.string().meta({ description: 'the login JWT' }), id }),
    z.object({ op: z.literal('list'), id }),
    z.object({ op: z.literal('ping'), id }),
  ]),
  'NativeRequest',
  'A request; the answer carries its `id`. Channels: `ticker:<symbol>`, `trades:<symbol>`, ' +
    '`orderbook:<symbol>`, `kline:<symbol>:<interval>`, `markPrice:<symbol>` (any symbol alias REST ' +
    'accepts), and, once authenticated, `orders`, `positions`, `balances`, `algoOrders`. At most 10 ' +
    'requests per second.',
);

const ack = (type: string, description: string) =>
  meta(
    z.object({ type: z.literal(type), channels: z.array(z.string()), id }),
    `Native${type[0]!.toUpperCase()}${type.slice(1)}`,
    description,
  );

export const NativeSubscribed = ack(
  'subscribed',
  'Every channel of the request was subscribed; `channels` echoes the names as sent.',
);
export const NativeUnsubscribed = ack('unsubscribed', 'The channels were unsubscribed (names as sent).');
export const NativeSubscriptions = ack(
  'subscriptions',
  'Answer to `list`: the channels held, names as sent.',
);

export const NativeAuthenticated = meta(
  z.object({ type: z.literal('authenticated'), user: z.string(), expires_at: ms, id }),
  'NativeAuthenticated',
  'The token is good: private channels may be subscribed until `expires_at` (ms); `auth` again with a ' +
    'fresh token extends it, else the connection gets an INVALID_TOKEN error and closes with 4001.',
);

export const NativePong = meta(
  z.object({ type: z.literal('pong'), time: ms, id }),
  'NativePong',
  'Answer to `ping` (the server also pings at the WebSocket level).',
);

export const NativeErrorFrame = meta(
  z.object({
    type: z.literal('error'),
    code: z.enum(['INVALID_REQUEST', 'INVALID_CHANNEL', 'INVALID_SYMBOL', 'INVALID_TOKEN', 'LIMIT_REACHED']),
    error: z.string(),
    id,
  }),
  'NativeError',
  "A refused request, in the native API's `{error, code}` envelope: the only answer to it (a subscribe " +
    'naming any bad channel subscribes nothing). INVALID_REQUEST: not JSON, unknown op, bad id or ' +
    "channels, `auth` as another user than the socket's; INVALID_CHANNEL: no such channel; " +
    'INVALID_SYMBOL: no such market; INVALID_TOKEN: missing, ' +
    'bad or expired JWT, or a private channel before auth; LIMIT_REACHED: more than 100 channels in a ' +
    'request or the connection limit (1,024).',
);

const frame = <T extends z.ZodType>(
  name: string,
  type: 'update' | 'snapshot',
  data: T,
  description: string,
) => meta(z.object({ type: z.literal(type), channel: z.string(), data }), name, description);

export const NativeTicker = frame(
  'NativeTicker',
  'update',
  z.object({
    symbol: z.string(),
    last_price: dec,
    last_quantity: dec,
    price_change: dec,
    price_change_percent: dec,
    weighted_average_price: dec,
    open_price: dec,
    high_price: dec,
    low_price: dec,
    volume: dec,
    quote_volume: dec,
    trade_count: z.number().int(),
    open_time: ms,
    close_time: ms,
  }),
  '`ticker:<symbol>`: rolling 24 h figures, each second they changed (and at once on subscribe).',
);

export const NativeTrade = frame(
  'NativeTrade',
  'update',
  z.object({
    id: z.number().int(),
    symbol: z.string(),
    price: dec,
    quantity: dec,
    side: z.enum(['buy', 'sell']).meta({ description: 'the taker side' }),
    time: ms,
  }),
  '`trades:<symbol>`: each public trade.',
);

const book = { symbol: z.string(), bids: z.array(level), asks: z.array(level) };

export const NativeBookSnapshot = frame(
  'NativeBookSnapshot',
  'snapshot',
  z.object({ ...book, seq: z.number().int(), time: ms }),
  '`orderbook:<symbol>`, first frame after subscribing: the whole book (bids best first, asks best first) at ' +
    'sequence `seq`.',
);

export const NativeBookUpdate = frame(
  'NativeBookUpdate',
  'update',
  z.object({
    ...book,
    first_seq: z.number().int(),
    seq: z.number().int(),
    prev_seq: z.number().int(),
    time: ms,
  }),
  '`orderbook:<symbol>`, every 100 ms that the book changed: the levels changed (quantity 0: gone). Apply ' +
    'updates with `seq` > the snapshot `seq`; the first has `prev_seq` <= the snapshot `seq`, each later ' +
    "one `prev_seq` = the previous update's `seq`. Anything else is a gap: unsubscribe and subscribe again.",
);

export const NativeKline = frame(
  'NativeKline',
  'update',
  z.object({
    symbol: z.string(),
    interval: z.string(),
    open_time: ms,
    close_time: ms,
    open: dec,
    high: dec,
    low: dec,
    close: dec,
    volume: dec,
    quote_volume: dec,
    trade_count: z.number().int(),
    closed: z.boolean(),
  }),
  '`kline:<symbol>:<interval>` (1m … 1M, as REST klines): the current candle when it changed.',
);

export const NativeMarkPrice = frame(
  'NativeMarkPrice',
  'update',
  z.object({
    symbol: z.string(),
    mark_price: dec,
    index_price: dec,
    funding_rate: dec,
    next_funding_time: ms,
    time: ms,
  }),
  '`markPrice:<symbol>`: the latest mark each second.',
);

export const NativeOrderUpdate = frame(
  'NativeOrderUpdate',
  'update',
  NativeOrder,
  '`orders` (private): an order after each change, as `GET /api/v1/orders/{id}` shows it.',
);

export const NativePositionUpdate = frame(
  'NativePositionUpdate',
  'update',
  z.object({
    symbol: z.string(),
    side: z.enum(['long', 'short']).nullable().meta({ description: 'null once closed' }),
    size: dec,
    entry_price: dec,
    leverage: z.number().int(),
    time: ms,
  }),
  '`positions` (private): a position after a fill; marks, PnL and margins are `GET /api/v1/account`’s.',
);

export const NativeBalanceUpdate = frame(
  'NativeBalanceUpdate',
  'update',
  z.object({ asset: z.string(), wallet_balance: dec, order_margin: dec, time: ms }),
  '`balances` (private): the wallet after a change and the margin its open orders hold.',
);

export const NativeAlgoOrderUpdate = frame(
  'NativeAlgoOrderUpdate',
  'update',
  NativeConditionalOrder,
  '`algoOrders` (private): a conditional order after each change.',
);

export const NATIVE_SERVER_FRAMES = [
  NativeSubscribed,
  NativeUnsubscribed,
  NativeSubscriptions,
  NativeAuthenticated,
  NativePong,
  NativeErrorFrame,
  NativeTicker,
  NativeTrade,
  NativeBookSnapshot,
  NativeBookUpdate,
  NativeKline,
  NativeMarkPrice,
  NativeOrderUpdate,
  NativePositionUpdate,
  NativeBalanceUpdate,
  NativeAlgoOrderUpdate,
] as const;
