import type { z } from 'zod';
import { type JsonSchema, SchemaSet } from '../../openapi/json-schemas';
import { DEFAULT_STREAM_LIMITS } from '../stream-server';
import {
  CombinedFrame,
  MARKET_EVENTS,
  StreamError,
  StreamRequest,
  StreamResult,
  USER_EVENTS,
} from './binance-messages';
import { NATIVE_SERVER_FRAMES, NativeRequest } from './native-messages';

/** A message's name: its schema's `id`. */
function nameOf(schema: z.ZodType): string {
  const id = (schema.meta() as { id?: string } | undefined)?.id;
  if (!id) throw new Error('a WebSocket message schema needs a meta id');
  return id;
}

const ref = (kind: 'messages' | 'channels', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const channelRef = (name: string) => ({ $ref: `#/channels/${name}` });
const messageRef = (channel: string, name: string) => ({ $ref: `#/channels/${channel}/messages/${name}` });

interface ChannelSpec {
  address: string;
  description: string;
  /** Messages the server sends on it; the client's requests and their answers. */
  events: readonly z.ZodType[];
  requests?: z.ZodType;
  replies?: readonly z.ZodType[];
  parameters?: Record<string, string>;
  query?: Record<string, string>;
}

const L = DEFAULT_STREAM_LIMITS;
const LIMITS =
  `Per IP ${L.maxConnectionsPerIp} connections (429 at the upgrade); per connection ${L.maxStreamsPerConnection} ` +
  `streams or channels and ${L.requestsPerSecond} requests per second (close 1008); a client whose unsent ` +
  `data passes ${L.maxBufferedBytes / 1024 / 1024} MiB is closed with 4008 and a reason (the others are not ` +
  `slowed); ping every ${L.pingIntervalMs / 60_000} minutes (no pong: closed); 24 h lifetime (4001); ` +
  'shutdown closes every socket with 1001.';

const STREAM_NAMES =
  'Streams: `<symbol>@aggTrade`, `@trade`, `@bookTicker`, `!bookTicker`, `@depth<5|10|20>[@100ms|@500ms]`, ' +
  '`@depth[@100ms|@500ms]`, `@markPrice[@1s]`, `!markPrice@arr[@1s]`, `@kline_<interval>`, ' +
  '`<pair>_perpetual@continuousKline_<interval>`, `@ticker`, `!ticker@arr`, `@miniTicker`, ' +
  '`!miniTicker@arr`, `@forceOrder`, `!forceOrder@arr`. Symbol aliases work as on REST; events carry the ' +
  'name as sent.';

function channels(): Record<string, ChannelSpec> {
  const market = { events: MARKET_EVENTS, requests: StreamRequest, replies: [StreamResult, StreamError] };
  const raw = { streams: 'stream names joined by `/` (may be empty: SUBSCRIBE later)' };
  const combinedQuery = { streams: 'stream names joined by `/`' };
  return {
    ws: { ...market, address: '/ws/{streams}', parameters: raw, description: `Raw events. ${STREAM_NAMES}` },
    stream: {
      ...market,
      events: [CombinedFrame, ...MARKET_EVENTS],
      address: '/stream',
      query: combinedQuery,
      description: 'Combined: every event wrapped as `{stream, data}`.',
    },
    publicWs: {
      ...market,
      address: '/public/ws/{streams}',
      parameters: raw,
      description: 'Book streams (`@bookTicker`, `!bookTicker`, `@depth…`, and `@trade`), raw.',
    },
    publicStream: {
      ...market,
      events: [CombinedFrame, ...MARKET_EVENTS],
      address: '/public/stream',
      query: combinedQuery,
      description: 'Book streams, combined.',
    },
    marketWs: {
      ...market,
      address: '/market/ws/{streams}',
      parameters: raw,
      description: 'Every other market stream, raw.',
    },
    marketStream: {
      ...market,
      events: [CombinedFrame, ...MARKET_EVENTS],
      address: '/market/stream',
      query: combinedQuery,
      description: 'Every other market stream, combined.',
    },
    userData: {
      events: USER_EVENTS,
      address: '/ws/{listenKey}',
      parameters: { listenKey: 'from `POST /fapi/v1/listenKey` (60 minutes, kept alive by `PUT`)' },
      description:
        'The user data stream of a listen key (also `/private/ws?listenKey=`, or SUBSCRIBE the key on `/ws`), ' +
        'in the order the account’s risk partition produced the events.',
    },
    privateWs: {
      events: USER_EVENTS,
      address: '/private/ws',
      query: { listenKey: 'the listen key' },
      description:
        'The user data stream, Binance’s split path (also `/private/stream`); opened without a key, it ' +
        'serves the key a SUBSCRIBE names, as Binance’s official connector uses it.',
    },
    native: {
      events: NATIVE_SERVER_FRAMES,
      requests: NativeRequest,
      replies: NATIVE_SERVER_FRAMES.slice(0, 6),
      address: '/api/v1/ws',
      query: {
        token:
          'optional login JWT (browsers); or `Authorization: Bearer <JWT>`; a bad one is 401 INVALID_TOKEN',
      },
      description:
        'Native channels for front ends: `{op, channels, id}` requests, every server frame has a `type`; ' +
        'channel frames are `{type, channel, data}` with the channel name as sent. Public channels need no ' +
        'login; private ones need the JWT, given at connect or with `{"op":"auth","token":…}`.',
    },
  };
}

/**
 * The AsyncAPI 3 document of the gateway's WebSocket API: Binance-compatible streams and user data,
 * and the native channels, with message schemas generated from the zod schemas the payload
 * builders are typed by (and the tests parse live frames with).
 */
export function buildWsAsyncApi(version: string) {
  const schemas = new SchemaSet('draft-7');
  const messages: Record<string, JsonSchema> = {};
  const message = (schema: z.ZodType, io: 'input' | 'output') => {
    const name = nameOf(schema);
    const meta = schema.meta() as { description?: string };
    messages[name] ??= {
      name,
      title: name,
      contentType: 'application/json',
      ...(meta.description ? { summary: meta.description } : {}),
      payload: schemas.of(schema, io),
    };
    return name;
  };
  const out: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  for (const [id, c] of Object.entries(channels())) {
    const names = c.events.map((s) => message(s, 'output'));
    const request = c.requests ? message(c.requests, 'input') : undefined;
    const replies = (c.replies ?? []).map((s) => message(s, 'output'));
    const all = [...new Set([...names, ...(request ? [request] : []), ...replies])];
    out[id] = {
      address: c.address,
      description: `${c.description} ${LIMITS}`,
      messages: Object.fromEntries(all.map((n) => [n, ref('messages', n)])),
      ...(c.parameters
        ? {
            parameters: Object.fromEntries(
              Object.entries(c.parameters).map(([k, d]) => [k, { description: d }]),
            ),
          }
        : {}),
      ...(c.query
        ? {
            bindings: {
              ws: {
                method: 'GET',
                query: {
                  type: 'object',
                  properties: Object.fromEntries(
                    Object.entries(c.query).map(([k, d]) => [k, { type: 'string', description: d }]),
                  ),
                },
              },
            },
          }
        : {}),
    };
    operations[`${id}Events`] = {
      action: 'send',
      channel: channelRef(id),
      summary: 'What the server sends',
      messages: names.map((n) => messageRef(id, n)),
    };
    if (request)
      operations[`${id}Requests`] = {
        action: 'receive',
        channel: channelRef(id),
        summary: 'Requests the server answers',
        messages: [messageRef(id, request)],
        reply: { channel: channelRef(id), messages: replies.map((n) => messageRef(id, n)) },
      };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'perp-exchange WebSocket API',
      version,
      description:
        'WebSockets on the gateway’s HTTP port: Binance USDⓈ-M compatible market and user data streams, and ' +
        'the native channels at `/api/v1/ws`. Every replica serves every stream (a client may connect to any).',
    },
    defaultContentType: 'application/json',
    servers: {
      gateway: {
        host: 'localhost:8080',
        protocol: 'ws',
        description: 'A gateway replica (its HTTP port; wss behind a TLS proxy)',
      },
    },
    channels: out,
    operations,
    components: { messages, schemas: schemas.components },
  };
}
