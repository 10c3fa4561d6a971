/**
 * The requests the benchmark sends: signed FAPI calls built per request (fresh timestamp, fresh
 * HMAC-SHA256 with `signPayload` from libs/auth, the function the gateway's verifier mirrors), and the
 * order flow two users run against each other.
 *
 * One cycle of the flow, six requests: A buys and B sells at one price, twice (each pair fills, in
 * whichever order the two arrive), then A places a LIMIT far below that price and cancels it by its
 * client order id. A only ever bids and B only ever asks, so no order can meet its owner's (self-trade
 * prevention never fires, whatever the connections interleave) and the book at the crossing price
 * holds at most one side, a few orders deep. Positions grow by one lot per fill: a long run needs a
 * deposit of (fills x lot x price / leverage), far below what the benchmark credits.
 */
import { signPayload } from '@perp/auth';

export interface ApiKey {
  apiKey: string;
  secretKey: string;
}

export interface WireRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path with its query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export const ORDER_PATH = '/fapi/v1/order';

/**
 * A signed request, Binance's convention: the parameters then `timestamp`, URL-encoded, signed as
 * hex HMAC-SHA256 with the secret, `signature` appended; a POST carries them as a form body (as ccxt
 * does), other methods in the query string. The key goes in `X-MBX-APIKEY`.
 */
export function signedRequest(
  key: ApiKey,
  method: WireRequest['method'],
  path: string,
  params: Record<string, string>,
  timestamp: number = Date.now(),
): WireRequest {
  const query = new URLSearchParams(params);
  query.set('timestamp', String(timestamp));
  const payload = query.toString();
  const signed = `${payload}&signature=${signPayload(key.secretKey, payload)}`;
  if (method === 'POST')
    return {
      method,
      path,
      headers: { 'x-mbx-apikey': key.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
      body: signed,
    };
  return { method, path: `${path}?${signed}`, headers: { 'x-mbx-apikey': key.apiKey } };
}

export interface OrderMix {
  symbol: string;
  /** Where A and B cross. */
  price: string;
  /** A's order that rests and is cancelled: far enough from `price` never to fill. */
  restingPrice: string;
  quantity: string;
}

/** Requests in one cycle: four crossing orders, one resting order, its cancel. */
export const CYCLE_LENGTH = 6;
export const CANCEL_STEP = 5;
export const RESTING_STEP = 4;

type Side = 'BUY' | 'SELL';
const CROSSING: readonly (readonly ['A' | 'B', Side])[] = [
  ['A', 'BUY'],
  ['B', 'SELL'],
  ['A', 'BUY'],
  ['B', 'SELL'],
];

/** Builds the cycle's requests for users A and B; client order ids are unique per flow. */
export class OrderFlow {
  private next = 0;

  constructor(
    private readonly mix: OrderMix,
    private readonly a: ApiKey,
    private readonly b: ApiKey,
    /** Prefix of the client order ids (letters, digits, `-`), distinct per benchmark row. */
    private readonly tag: string,
  ) {}

  /** Step 0..3: the crossing orders. */
  crossing(step: number, now = Date.now()): WireRequest {
    const [who, side] = CROSSING[step];
    return this.limit(who === 'A' ? this.a : this.b, side, this.mix.price, {}, now);
  }

  /** Step 4: A's order that rests; cancel it with the returned client order id. */
  resting(now = Date.now()): { request: WireRequest; clientOrderId: string } {
    const clientOrderId = `${this.tag}-${this.next++}`;
    return {
      request: this.limit(this.a, 'BUY', this.mix.restingPrice, { newClientOrderId: clientOrderId }, now),
      clientOrderId,
    };
  }

  /** Step 5: cancels A's resting order. */
  cancel(clientOrderId: string, now = Date.now()): WireRequest {
    return signedRequest(
      this.a,
      'DELETE',
      ORDER_PATH,
      { symbol: this.mix.symbol, origClientOrderId: clientOrderId },
      now,
    );
  }

  private limit(
    user: ApiKey,
    side: Side,
    price: string,
    extra: Record<string, string>,
    now: number,
  ): WireRequest {
    const { symbol, quantity } = this.mix;
    return signedRequest(
      user,
      'POST',
      ORDER_PATH,
      { symbol, side, type: 'LIMIT', timeInForce: 'GTC', price, quantity, ...extra },
      now,
    );
  }
}

/** Counts order statuses and keeps a few refusals, from response bodies. */
export class ResponseTally {
  readonly statuses: Record<string, number> = {};
  readonly refusals: string[] = [];
  notOrders = 0;

  record(httpStatus: number, body: string): void {
    if (httpStatus < 200 || httpStatus > 299) {
      if (this.refusals.length < 5) this.refusals.push(`${httpStatus} ${body.slice(0, 200)}`);
      return;
    }
    const m = /"status":"([A-Z_]+)"/.exec(body);
    if (!m || !body.includes('"orderId"')) {
      this.notOrders++;
      return;
    }
    this.statuses[m[1]] = (this.statuses[m[1]] ?? 0) + 1;
  }
}
