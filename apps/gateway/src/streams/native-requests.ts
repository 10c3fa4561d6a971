/**
 * Requests on the native WebSocket (`/api/v1/ws`): `{op, id?, ...}` text frames, parsed into a
 * request or the error frame answering it. Every server frame has a `type`; errors use the native
 * API's flat envelope (`error` message, `code`) plus the request's `id` when it had one.
 */
export type NativeRequest =
  | { op: 'subscribe' | 'unsubscribe'; channels: string[]; id?: NativeId }
  | { op: 'auth'; token: string; id?: NativeId }
  | { op: 'list' | 'ping'; id?: NativeId };

export type NativeId = number | string;

/** Codes of native error frames (the spec's native codes where one applies). */
export type NativeWsCode =
  'INVALID_REQUEST' | 'INVALID_CHANNEL' | 'INVALID_SYMBOL' | 'INVALID_TOKEN' | 'LIMIT_REACHED';

export interface NativeErrorFrame {
  type: 'error';
  code: NativeWsCode;
  error: string;
  id?: NativeId;
}

const OPS = ['subscribe', 'unsubscribe', 'auth', 'list', 'ping'];
/** At most this many channels in one request (a connection's total is the stream limit). */
export const MAX_CHANNELS_PER_REQUEST = 100;

export function nativeError(code: NativeWsCode, error: string, id?: NativeId): NativeErrorFrame {
  return { type: 'error', code, error, ...(id === undefined ? {} : { id }) };
}

function validId(id: unknown): id is NativeId | undefined {
  if (id === undefined) return true;
  if (typeof id === 'number') return Number.isSafeInteger(id) && id >= 0;
  return typeof id === 'string' && id.length <= 64;
}

export function isNativeError(r: NativeRequest | NativeErrorFrame): r is NativeErrorFrame {
  return 'type' in r && r.type === 'error';
}

/** The request a text frame holds, or the error to answer it with. */
export function parseNativeRequest(text: string): NativeRequest | NativeErrorFrame {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return nativeError('INVALID_REQUEST', 'Invalid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return nativeError('INVALID_REQUEST', 'A request is a JSON object with an op.');
  const { op, id, channels, token } = body as Record<string, unknown>;
  if (!validId(id))
    return nativeError(
      'INVALID_REQUEST',
      'id must be an unsigned integer or a string of at most 64 characters.',
    );
  if (typeof op !== 'string' || !OPS.includes(op))
    return nativeError('INVALID_REQUEST', `op must be one of ${OPS.join(', ')}.`, id);
  const withId = id === undefined ? {} : { id };
  if (op === 'auth') {
    if (typeof token !== 'string' || token === '')
      return nativeError('INVALID_TOKEN', 'Missing bearer token.', id);
    return { op, token, ...withId };
  }
  if (op === 'list' || op === 'ping') return { op, ...withId };
  if (!Array.isArray(channels) || channels.length === 0 || !channels.every((c) => typeof c === 'string'))
    return nativeError('INVALID_REQUEST', 'channels must be a non-empty array of channel names.', id);
  if (channels.length > MAX_CHANNELS_PER_REQUEST)
    return nativeError('LIMIT_REACHED', `At most ${MAX_CHANNELS_PER_REQUEST} channels per request.`, id);
  return { op: op as 'subscribe' | 'unsubscribe', channels: channels as string[], ...withId };
}
