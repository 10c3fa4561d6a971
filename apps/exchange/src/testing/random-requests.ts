import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { REPO_ROOT } from '@perp/testing';

/**
 * Random requests to every documented operation, built from the OpenAPI documents (docs/openapi):
 * most parameters get a plausible value (an enum member, a listed symbol, a price near the index,
 * an order id the exchange answered earlier), some are left out and some get a malformed value, so
 * a request usually gets past validation into the handlers and now and then breaks one rule.
 */

interface Schema {
  $ref?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

/** The parts of an OpenAPI document read here. */
interface OpenApiOperation {
  parameters?: (Parameter & { schema?: Schema })[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, unknown>[];
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema> };
}

interface Parameter {
  name: string;
  in: string;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Query and path parameters. */
  params: Parameter[];
  /** Body properties and the body's media type (form for FAPI, JSON for the native API). */
  body?: { names: string[]; type: string };
  security: 'apiKey' | 'jwt' | 'adminToken' | '';
  /** Enum members of each parameter and body property, by name. */
  enums: Map<string, string[]>;
}

const METHODS = ['get', 'post', 'put', 'delete'];
/** Sent by the request signer, not generated. */
const SIGNING = new Set(['timestamp', 'signature', 'recvWindow']);

/** The operations of docs/openapi/`file`, except those `skip` names (`METHOD path`). */
export function documentedOperations(file: string, skip: ReadonlySet<string>): Operation[] {
  const doc = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/openapi', file), 'utf8')) as OpenApiDocument;
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s;
  const out: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths))
    for (const [m, o] of Object.entries(byMethod)) {
      const method = m.toUpperCase() as Operation['method'];
      if (!METHODS.includes(m) || skip.has(`${method} ${path}`)) continue;
      const enums = new Map<string, string[]>();
      const params: Parameter[] = [];
      for (const p of o.parameters ?? []) {
        if (SIGNING.has(p.name)) continue;
        params.push({ name: p.name, in: p.in });
        const e = resolve(p.schema)?.enum;
        if (e) enums.set(p.name, e.map(String));
      }
      const [type, content] = Object.entries(o.requestBody?.content ?? {})[0] ?? [];
      const props = resolve(content?.schema)?.properties ?? {};
      for (const [name, s] of Object.entries(props)) {
        const e = resolve(s)?.enum;
        if (e) enums.set(name, e.map(String));
      }
      const names = Object.keys(props).filter((n) => !SIGNING.has(n));
      const security = Object.keys(o.security?.[0] ?? {})[0] ?? '';
      out.push({
        method,
        path,
        params,
        body: type ? { names, type } : undefined,
        security: security as Operation['security'],
        enums,
      });
    }
  return out;
}

/** Malformed values: wrong types, bounds, encodings and sizes. */
const MALFORMED = [
  '',
  ' ',
  '-1',
  '0',
  '1e400',
  'NaN',
  'Infinity',
  '0x1f',
  '9'.repeat(40),
  'null',
  '[]',
  '{}',
  '["a"]',
  '%',
  'a\u0000b',
  'BTC\u{1F600}',
  '../..',
  'x'.repeat(3000),
  '1.0000000000000000001',
  '-99999999999999',
];

/** The random choices of one request, resolved against what the exchange has answered so far. */
export interface RequestPlan {
  op: number;
  /** Which of the two users sends it. */
  user: number;
  /**
   * Per parameter or body property, 0 to 39: a core one (CORE) is left out at 0, malformed at 1,
   * else plausible; another is plausible at 35-39, malformed at 34, else left out.
   */
  modes: number[];
  picks: number[];
  fractions: number[];
  malformed: number[];
}

/** `count` request plans over `ops` operations, reproducible from `seed`. */
export function requestPlans(ops: number, count: number, seed: number): RequestPlan[] {
  const perValue = 12; // value slots; a longer parameter list cycles through them
  const nat = fc.nat({ max: 1_000_000 });
  return fc.sample(
    fc.record({
      op: fc.nat({ max: ops - 1 }),
      user: fc.nat({ max: 1 }),
      modes: fc.array(fc.nat({ max: 39 }), { minLength: perValue, maxLength: perValue }),
      picks: fc.array(nat, { minLength: perValue, maxLength: perValue }),
      fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
        minLength: perValue,
        maxLength: perValue,
      }),
      malformed: fc.array(fc.nat({ max: MALFORMED.length - 1 }), {
        minLength: perValue,
        maxLength: perValue,
      }),
    }),
    { numRuns: count, seed },
  );
}

/** What plausible values are drawn from: the exchange's symbols and prices, ids it answered. */
export interface Known {
  symbols: string[];
  /** Index price per symbol (as last set). */
  index: Map<string, number>;
  orderIds: string[];
  clientOrderIds: string[];
  algoIds: string[];
  listenKeys: string[];
  addresses: string[];
  now: number;
}

const pickOf = <T>(list: readonly T[], n: number): T | undefined =>
  list.length ? list[n % list.length] : undefined;

/** Parameters naming the request's market. */
const SYMBOL_NAMES = new Set(['symbol', 'pair', 'market_symbol']);

const QUANTITIES = ['0.001', '0.002', '0.01', '0.05', '0.1'];
const LIMITS = ['1', '5', '10', '100', '500', '1000'];
const PRICE_NAMES = new Set([
  'price',
  'stopPrice',
  'triggerPrice',
  'trigger_price',
  'activatePrice',
  'activationPrice',
]);

/**
 * The parameters a request of its kind usually carries; the others (optional refinements) are
 * mostly left out, so that most requests are coherent enough to be taken.
 */
const CORE = new Set([
  'price',
  'triggerPrice',
  'symbol',
  'pair',
  'side',
  'type',
  'quantity',
  'timeInForce',
  'selfTradePreventionMode',
  'time_in_force',
  'leverage',
  'marginType',
  'algoType',
  'callbackRate',
  'orderId',
  'origClientOrderId',
  'orderIdList',
  'batchOrders',
  'algoId',
  'listenKey',
  'dualSidePosition',
  'interval',
  'period',
  'limit',
  'indexPrice',
  'address',
  'asset',
  'amount',
  'margin_mode',
  'tier',
  'id',
  'positionId',
]);

/**
 * A plausible value of parameter `name` (undefined: no idea, use a malformed one). `symbol` is the
 * request's market, so prices fit it.
 */
function plausible(
  name: string,
  op: Operation,
  known: Known,
  symbol: string,
  n: number,
  f: number,
): string | undefined {
  const e = op.enums.get(name);
  // Most orders are plain limit and market ones: the other types need fields of their own.
  if (e && name.toLowerCase() === 'type' && n % 4 !== 0) return pickOf(e.slice(0, 2), n >> 2);
  // One-way mode: LONG and SHORT are refused, so mostly BOTH.
  if (e && name === 'positionSide') return n % 5 === 0 ? pickOf(e, n >> 3) : 'BOTH';
  if (e) return pickOf(e, n);
  if (SYMBOL_NAMES.has(name)) {
    const s = pickOf(known.symbols, n) ?? 'BTCUSDT';
    // Aliases too: lower case and dashed, as REST accepts them.
    return n % 7 === 0 ? s.toLowerCase() : n % 11 === 0 ? s.replace(/USDT$/, '-USDT') : s;
  }
  if (PRICE_NAMES.has(name)) return nearIndex(known, symbol, 0.03, f, 1);
  switch (name) {
    case 'quantity':
    case 'amount':
      return pickOf(QUANTITIES, n);
    case 'quoteOrderQty':
      return String(50 + (n % 500));
    case 'callbackRate':
      return (0.1 + 4.9 * f).toFixed(1);
    case 'leverage':
      return String(1 + (n % 30));
    case 'reduceOnly':
    case 'reduce_only':
    case 'closePosition':
    case 'priceProtect':
      return n % 2 ? 'true' : 'false';
    case 'dualSidePosition':
      return 'false';
    case 'goodTillDate':
      return String(known.now + 700_000 + (n % 100_000));
    case 'limit':
      return pickOf(LIMITS, n);
    case 'page':
      return String(1 + (n % 3));
    case 'startTime':
    case 'endTime':
      return String(known.now - (n % 3_600_000));
    case 'orderId':
    case 'id':
      return pickOf(known.orderIds, n);
    case 'origClientOrderId':
      return pickOf(known.clientOrderIds, n);
    case 'max_slippage':
      return (0.01 + 0.1 * f).toFixed(3);
    case 'time':
      return String(known.now);
    case 'newClientOrderId':
    case 'client_order_id':
    case 'clientAlgoId':
      return `rq-${n}`;
    case 'algoId':
      return pickOf(known.algoIds, n);
    case 'listenKey':
      return pickOf(known.listenKeys, n);
    case 'address':
      return pickOf(known.addresses, n);
    case 'asset':
      return 'USDT';
    case 'indexPrice':
      return nearIndex(known, symbol, 0.08, f, 2);
    case 'batchOrders':
      return JSON.stringify(
        Array.from({ length: 1 + (n % 3) }, (_, i) => plausibleOrder(known, symbol, n + i, (f + i / 3) % 1)),
      );
    case 'orderIdList':
    case 'orderidlist':
      return JSON.stringify(known.orderIds.slice(-1 - (n % 4)));
    case 'origClientOrderIdList':
    case 'origclientorderidlist':
      return JSON.stringify(known.clientOrderIds.slice(-1 - (n % 4)));
    default:
      return undefined;
  }
}

/**
 * The values `plan` gives the parameters of `op`, asked in order: a function of a name and whether
 * it is required, answering undefined for a parameter left out. The request's market is the same
 * for every parameter naming one.
 */
export function planValues(
  plan: RequestPlan,
  op: Operation,
  known: Known,
): (name: string, required: boolean) => string | undefined {
  let slot = 0;
  const symbolPick = plan.picks[0]!;
  const symbol = known.symbols[symbolPick % known.symbols.length]!;
  return (name, required) => {
    const i = slot++ % plan.modes.length;
    const mode = plan.modes[i]!;
    const core = required || CORE.has(name);
    const malformed = core ? 1 : 34;
    if (!required && mode < malformed) return undefined;
    const p = SYMBOL_NAMES.has(name)
      ? plausible(name, op, known, symbol, symbolPick, 0)
      : plausible(name, op, known, symbol, plan.picks[i]!, plan.fractions[i]!);
    return mode === malformed || p === undefined ? MALFORMED[plan.malformed[i]!]! : p;
  };
}

/**
 * A price within `band` (a fraction) of the symbol's last index, placed by `f` in [0, 1]. Test
 * input only: plain numbers are enough to pick a value the exchange then parses exactly.
 */
function nearIndex(known: Known, symbol: string, band: number, f: number, decimals: number): string {
  return ((known.index.get(symbol) ?? 100) * (1 - band + 2 * band * f)).toFixed(decimals);
}

/** A New Order's parameters, as a batch entry. */
function plausibleOrder(known: Known, symbol: string, n: number, f: number): Record<string, string> {
  const limit = n % 3 !== 0;
  return {
    symbol,
    side: n % 2 ? 'BUY' : 'SELL',
    type: limit ? 'LIMIT' : 'MARKET',
    quantity: pickOf(QUANTITIES, n)!,
    ...(limit ? { price: nearIndex(known, symbol, 0.03, f, 1), timeInForce: 'GTC' } : {}),
  };
}
