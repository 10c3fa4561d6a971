/**
 * Binance's live-subscription requests on a stream connection (`SUBSCRIBE`, `UNSUBSCRIBE`,
 * `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`), parsed into a request or the error object
 * Binance answers with (`{"error":{"code","msg"},"id"}`): code 0 unknown property, 1 invalid value
 * type, 2 invalid request, 3 invalid JSON.
 */
export type StreamRequest =
  | { method: 'SUBSCRIBE' | 'UNSUBSCRIBE'; params: string[]; id: RequestId }
  | { method: 'LIST_SUBSCRIPTIONS'; id: RequestId }
  | { method: 'SET_PROPERTY'; property: 'combined'; value: boolean; id: RequestId }
  | { method: 'GET_PROPERTY'; property: 'combined'; id: RequestId };

export type RequestId = number | string | null;

export interface StreamRequestError {
  error: { code: 0 | 1 | 2 | 3; msg: string };
  id: RequestId;
}

const METHODS = ['SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY'];

export function requestError(code: 0 | 1 | 2 | 3, msg: string, id: RequestId = null): StreamRequestError {
  return { error: { code, msg }, id };
}

function validId(id: unknown): id is RequestId {
  if (id === null) return true;
  if (typeof id === 'number') return Number.isSafeInteger(id) && id >= 0;
  return typeof id === 'string' && id.length <= 36 && /^[a-zA-Z0-9-_]*$/.test(id);
}

/** The request a text frame holds, or the error to answer it with. */
export function parseStreamRequest(text: string): StreamRequest | StreamRequestError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return requestError(3, 'Invalid JSON: expected value at line 1 column 1');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return requestError(3, 'Invalid JSON: expected an object');
  const { method, params, id } = body as Record<string, unknown>;
  if (!validId(id)) return requestError(2, 'Invalid request: request ID must be an unsigned integer');
  if (method === undefined) return requestError(2, 'Invalid request: missing field `method`', id);
  if (typeof method !== 'string' || !METHODS.includes(method))
    return requestError(
      2,
      `Invalid request: unknown variant \`${String(method)}\`, expected one of ${METHODS.map((m) => `\`${m}\``).join(', ')}`,
      id,
    );
  if (method === 'LIST_SUBSCRIPTIONS') return { method, id };
  if (!Array.isArray(params)) return requestError(2, 'Invalid request: missing field `params`', id);
  if (method === 'SUBSCRIBE' || method === 'UNSUBSCRIBE') {
    if (!params.every((p): p is string => typeof p === 'string'))
      return requestError(1, 'Invalid value type: expected string', id);
    return { method, params, id };
  }
  const [property, value] = params as unknown[];
  if (typeof property !== 'string')
    return requestError(2, 'Invalid request: property name must be a string', id);
  if (property !== 'combined') return requestError(0, 'Unknown property', id);
  if (method === 'GET_PROPERTY') return { method, property, id };
  if (typeof value !== 'boolean') return requestError(1, 'Invalid value type: expected Boolean', id);
  return { method: 'SET_PROPERTY', property, value, id };
}

export function isRequestError(r: StreamRequest | StreamRequestError): r is StreamRequestError {
  return 'error' in r;
}
