import { createHmac, timingSafeEqual } from 'node:crypto';
import { FapiAuthError, FapiError } from '@perp/contracts';

/** |now - timestamp| <= this, both directions; `recvWindow` never widens it (spec, Limits). */
export const SIGNATURE_WINDOW_MS = 60_000;

/** A signed FAPI request as it came off the wire. */
export interface SignedRequestInput {
  /** Raw query string as received (no leading `?`), e.g. from `request.url`; '' when none. */
  query: string;
  /** Raw body bytes as received (not a re-serialised object); omitted or empty when none. */
  body?: string | Buffer;
  /** The request's Content-Type: a form-encoded body may carry `timestamp` and `signature`. */
  contentType?: string;
}

export interface VerifiedRequest {
  /** The request's `timestamp` (ms), inside the window. */
  timestamp: number;
  /** Query and form-body parameters, decoded, without `signature`; a JSON body is the handler's. */
  params: URLSearchParams;
}

export const SIGNATURE_INVALID_MESSAGE = 'Signature for this request is not valid.';
export const TIMESTAMP_OUTSIDE_WINDOW_MESSAGE = 'Timestamp for this request is outside of the recvWindow.';

const AMP = 0x26;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
// Milliseconds since the epoch; a leading sign, decimals or exponents are not a timestamp.
const TIMESTAMP = /^\d{1,15}$/;

/** The raw query string of a request URL (`request.url`), without the `?`; '' when there is none. */
export function rawQueryOf(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
}

interface Split {
  /** The raw bytes minus every `signature` segment, other bytes untouched. */
  kept: Buffer;
  params: [string, string][];
  signatures: string[];
}

/** Drops `signature=…` segments by byte surgery so the rest stays exactly as the client signed it. */
function splitSignature(raw: Buffer): Split {
  const keptSegments: Buffer[] = [];
  const params: [string, string][] = [];
  const signatures: string[] = [];
  if (raw.length === 0) return { kept: raw, params, signatures };
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf(AMP, start);
    if (end < 0) end = raw.length;
    const segment = raw.subarray(start, end);
    start = end + 1;
    if (segment.length === 0) {
      // Empty segments (`a=1&&b=2`) carry no parameter but stay, so the bytes stay identical.
      keptSegments.push(segment);
      continue;
    }
    // Decoding the segment alone gives exactly the pair URLSearchParams would give.
    const [pair] = [...new URLSearchParams(segment.toString('utf8'))];
    if (pair?.[0] === 'signature') signatures.push(pair[1]);
    else {
      keptSegments.push(segment);
      if (pair) params.push(pair);
    }
  }
  return { kept: joinSegments(keptSegments), params, signatures };
}

function joinSegments(segments: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  segments.forEach((s, i) => {
    if (i > 0) parts.push(Buffer.from('&'));
    parts.push(s);
  });
  return Buffer.concat(parts);
}

/**
 * The same split for text that decodes to itself (ASCII, no `%` or `+`: the usual client's query or
 * form body): string work only, no per-segment decoding. Undefined when the text is not plain.
 */
function splitPlainSignature(
  raw: string,
): { kept: string; params: [string, string][]; signatures: string[] } | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 || c === 0x2b || c > 0x7e) return undefined;
  }
  const params: [string, string][] = [];
  const signatures: string[] = [];
  if (raw.length === 0) return { kept: raw, params, signatures };
  const segments = raw.split('&');
  let kept = '';
  let first = true;
  for (const segment of segments) {
    const eq = segment.indexOf('=');
    const name = eq < 0 ? segment : segment.slice(0, eq);
    const value = eq < 0 ? '' : segment.slice(eq + 1);
    if (name === 'signature') {
      signatures.push(value);
      continue;
    }
    kept = first ? segment : `${kept}&${segment}`;
    first = false;
    // An empty segment stays in the bytes and carries no parameter, as URLSearchParams reads it.
    if (segment.length > 0) params.push([name, value]);
  }
  return { kept, params, signatures };
}

/** `raw` as text when every byte is printable ASCII (latin1 decoding is then exact). */
function asciiText(raw: Buffer): string | undefined {
  for (let i = 0; i < raw.length; i++) if (raw[i]! > 0x7e) return undefined;
  return raw.toString('latin1');
}

function isFormBody(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

function toBuffer(v: string | Buffer | undefined): Buffer {
  if (v === undefined) return Buffer.alloc(0);
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

/** Hex HMAC-SHA256 of a payload keyed by the secret's characters (not hex-decoded), as Binance clients do. */
export function signPayload(secretKey: string, payload: string | Buffer): string {
  return createHmac('sha256', secretKey).update(payload).digest('hex');
}

/**
 * The bytes the client signed: the raw query then the raw body, concatenated with no separator,
 * each without its `signature` parameter (only a form body can carry one; JSON goes in verbatim).
 */
export function signedPayload(input: SignedRequestInput): {
  payload: Buffer;
  params: URLSearchParams;
  signatures: string[];
} {
  const split = plainSignedPayload(input);
  if (split) return { ...split, payload: Buffer.from(split.payload, 'latin1') };
  return bytesSignedPayload(input);
}

/** signedPayload when the query and a form (or absent) body are plain text; else undefined. */
function plainSignedPayload(
  input: SignedRequestInput,
): { payload: string; params: URLSearchParams; signatures: string[] } | undefined {
  const query = splitPlainSignature(input.query);
  if (!query) return undefined;
  const body = input.body;
  if (body === undefined || body.length === 0)
    return { payload: query.kept, params: new URLSearchParams(query.params), signatures: query.signatures };
  if (!isFormBody(input.contentType)) return undefined;
  const text = typeof body === 'string' ? body : asciiText(body);
  const form = text === undefined ? undefined : splitPlainSignature(text);
  if (!form) return undefined;
  for (const pair of form.params) query.params.push(pair);
  for (const signature of form.signatures) query.signatures.push(signature);
  return {
    payload: query.kept + form.kept,
    params: new URLSearchParams(query.params),
    signatures: query.signatures,
  };
}

function bytesSignedPayload(input: SignedRequestInput): {
  payload: Buffer;
  params: URLSearchParams;
  signatures: string[];
} {
  const query = splitSignature(Buffer.from(input.query, 'utf8'));
  const body = toBuffer(input.body);
  const params = new URLSearchParams(query.params);
  const signatures = [...query.signatures];
  let bodyBytes = body;
  if (body.length > 0 && isFormBody(input.contentType)) {
    const form = splitSignature(body);
    bodyBytes = form.kept;
    for (const [k, v] of form.params) params.append(k, v);
    signatures.push(...form.signatures);
  }
  return { payload: Buffer.concat([query.kept, bodyBytes]), params, signatures };
}

/**
 * Verifies a signed FAPI request with the key's secret. Checks, in order:
 * - exactly one `signature` (query or form body), 64 hex digits, either case → else SIGNATURE_INVALID;
 * - exactly one `timestamp`, an unsigned integer of ms → else SIGNATURE_INVALID ("missing timestamp");
 * - the HMAC matches, compared in constant time → else SIGNATURE_INVALID (401, auth envelope);
 * - |now - timestamp| <= 60000 → else -1021 INVALID_TIMESTAMP (400, `{code,msg}`).
 * The window is checked after the HMAC so only a holder of the secret learns that the clock, not the
 * signature, was at fault; Binance clients read -1021 as a clock problem (ccxt: InvalidNonce).
 */
export function verifySignedRequest(
  input: SignedRequestInput,
  secretKey: string,
  nowMs: number = Date.now(),
): VerifiedRequest {
  const { payload, params, signatures } = plainSignedPayload(input) ?? bytesSignedPayload(input);
  const signature = signatures.length === 1 ? signatures[0] : undefined;
  const stamps = params.getAll('timestamp');
  const stamp = stamps.length === 1 ? stamps[0] : undefined;
  if (signature === undefined || !HEX_SHA256.test(signature) || stamp === undefined || !TIMESTAMP.test(stamp))
    throw new FapiAuthError('SIGNATURE_INVALID', SIGNATURE_INVALID_MESSAGE);

  const expected = createHmac('sha256', secretKey).update(payload).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new FapiAuthError('SIGNATURE_INVALID', SIGNATURE_INVALID_MESSAGE);

  const timestamp = Number(stamp);
  if (Math.abs(nowMs - timestamp) > SIGNATURE_WINDOW_MS)
    throw new FapiError('INVALID_TIMESTAMP', TIMESTAMP_OUTSIDE_WINDOW_MESSAGE);
  return { timestamp, params };
}
