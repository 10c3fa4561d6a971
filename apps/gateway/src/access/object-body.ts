import { NativeError } from '@perp/contracts';

/** A native JSON object body, or `{}` when there was none; anything else is 400 INVALID_REQUEST. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new NativeError('INVALID_REQUEST', 'Request body must be a JSON object.');
  return body as Record<string, unknown>;
}
