import { createHmac } from 'node:crypto';
import { Wallet } from 'ethers';
import { http, type HttpResponse, login } from '@perp/testing';
import { adminRequest, deposit, newTrader, type Trader } from '../trading/trading.harness';
import {
  documentedOperations,
  type Known,
  type Operation,
  planValues,
  type RequestPlan,
  requestPlans,
} from './random-requests';

/** Operations left out: delisting ends a market for the rest of the run. */
const SKIP = new Set(['POST /admin/v1/markets/{symbol}/delist']);
/** How often an operation is drawn, where not once: the trading ones more. */
const WEIGHTS: Record<string, number> = {
  'POST /fapi/v1/order': 16,
  'POST /fapi/v1/batchOrders': 4,
  'PUT /fapi/v1/order': 3,
  'DELETE /fapi/v1/order': 3,
  'POST /fapi/v1/algoOrder': 4,
  'POST /api/v1/orders': 4,
  'POST /admin/v1/prices/{symbol}': 4,
  // A paused market refuses orders until it is resumed.
  'POST /admin/v1/markets/{symbol}/resume': 4,
  'POST /fapi/v1/leverage': 2,
};
/** Where each run starts its markets: what an earlier run liquidated trades again. */
const START_PRICES = [50_000, 3_000, 150];

export interface RandomUser extends Trader {
  token: string;
}

/** What a run of random requests met. */
export interface RandomRun {
  /** Requests answered outside the spec (a 5xx, an undocumented envelope, no answer in 10 s). */
  failures: string[];
  /** Answers per `METHOD path 2xx|status`. */
  answered: Map<string, number>;
}

/** Why `r` is not an answer the spec allows (a 2xx, or a 4xx in one of the error envelopes). */
function undocumented(r: HttpResponse): string | undefined {
  if (r.status < 300) return undefined;
  const b = r.body;
  const envelope =
    (typeof b?.code === 'number' && typeof b?.msg === 'string') || // FAPI
    (b?.success === false && typeof b?.error?.code === 'string') || // FAPI auth
    (typeof b?.code === 'string' && typeof b?.error === 'string'); // native and admin
  return r.status >= 400 && r.status < 500 && envelope ? undefined : `${r.status} ${r.text.slice(0, 300)}`;
}

/** Ids in an answer (an order, an array of them, a listen key) become plausible values later. */
function learn(known: Known, body: unknown): void {
  for (const v of Array.isArray(body) ? body : [body]) {
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.orderId === 'string') known.orderIds.push(o.orderId);
    if (typeof o.id === 'string' && typeof o.symbol === 'string') known.orderIds.push(o.id);
    if (typeof o.clientOrderId === 'string') known.clientOrderIds.push(o.clientOrderId);
    if (typeof o.algoId === 'number') known.algoIds.push(String(o.algoId));
    if (typeof o.listenKey === 'string') known.listenKeys.push(o.listenKey);
  }
}

/**
 * Two users sending seeded random requests (random-requests.ts plans them) to every documented
 * operation of an exchange at `url`, which may change (a restarted process).
 */
export class RandomRequestClient {
  readonly users: RandomUser[] = [];
  readonly known: Known = {
    symbols: [],
    index: new Map(),
    orderIds: [],
    clientOrderIds: [],
    algoIds: [],
    listenKeys: [],
    addresses: [],
    now: Date.now(),
  };
  private readonly ops: Operation[] = [
    ...documentedOperations('fapi.json', SKIP),
    ...documentedOperations('native.json', SKIP),
  ].flatMap((op) => Array<Operation>(WEIGHTS[`${op.method} ${op.path}`] ?? 1).fill(op));

  constructor(
    public url: string,
    private readonly adminToken: string,
  ) {}

  /** Logs two wallets in, each with an API key, and reads the first three markets. */
  async join(): Promise<void> {
    for (let i = 0; i < 2; i++) {
      const wallet = Wallet.createRandom();
      const t = await newTrader(this.url, wallet);
      this.users.push({ ...t, token: await login(this.url, wallet) });
      this.known.addresses.push(t.address);
    }
    const info = await http(`${this.url}/fapi/v1/exchangeInfo`);
    this.known.symbols = (info.body.symbols as { symbol: string }[]).map((s) => s.symbol).slice(0, 3);
  }

  /** Credits both users and sets every market's index back to where runs start. */
  async fundAtStartPrices(): Promise<void> {
    for (const u of this.users) await deposit(this.url, this.adminToken, u.address, '20000');
    for (const [i, symbol] of this.known.symbols.entries()) {
      const price = START_PRICES[i] ?? 100;
      const r = await adminRequest(this.url, this.adminToken, `/prices/${symbol}`, 'POST', {
        indexPrice: String(price),
      });
      if (r.status !== 200) throw new Error(`index price of ${symbol}: ${r.status} ${r.text}`);
      this.known.index.set(symbol, price);
    }
  }

  /**
   * Sends `count` planned requests, `clients` at a time (each takes the next plan when its last is
   * answered); stops at the first request left unanswered: something is stuck, the rest would wait.
   */
  async run(count: number, seed: number, clients: number): Promise<RandomRun> {
    const plans = requestPlans(this.ops.length, count, seed);
    const failures: string[] = [];
    const answered = new Map<string, number>();
    let next = 0;
    let stuck = false;
    const client = async () => {
      while (next < plans.length && !stuck) {
        const plan = plans[next++]!;
        const op = this.ops[plan.op]!;
        const [what, r] = await this.send(op, plan);
        const why = undocumented(r);
        if (why) failures.push(`${what} -> ${why}`);
        else learn(this.known, r.body);
        if (r.status === 0) stuck = true;
        const key = `${op.method} ${op.path} ${r.status < 300 ? '2xx' : r.status}`;
        answered.set(key, (answered.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    return { failures, answered };
  }

  /** The request `plan` makes of `op`, sent. */
  private async send(op: Operation, plan: RequestPlan): Promise<[string, HttpResponse]> {
    const user = this.users[plan.user]!;
    this.known.now = Date.now();
    const value = planValues(plan, op, this.known);
    let path = op.path;
    const query = new URLSearchParams();
    for (const p of op.params) {
      const v = value(p.name, p.in === 'path');
      if (v === undefined) continue;
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(v || 'x'));
      else if (p.in === 'query') query.append(p.name, v);
    }
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (op.body) {
      const fields: [string, string][] = [];
      for (const name of op.body.names) {
        const v = value(name, false);
        if (v !== undefined) fields.push([name, v]);
      }
      body = op.body.type.includes('json')
        ? JSON.stringify(Object.fromEntries(fields))
        : new URLSearchParams(fields).toString();
      headers['content-type'] = op.body.type;
    }
    let qs = query.toString();
    if (op.security === 'apiKey') {
      qs = `${qs}${qs ? '&' : ''}timestamp=${Date.now()}`;
      const signature = createHmac('sha256', user.key.secret_key)
        .update(qs + (body ?? ''))
        .digest('hex');
      qs = `${qs}&signature=${signature}`;
      headers['x-mbx-apikey'] = user.key.api_key;
    } else if (op.security === 'jwt') headers.authorization = `Bearer ${user.token}`;
    else if (op.security === 'adminToken') headers.authorization = `Bearer ${this.adminToken}`;
    const url = `${path}${qs ? `?${qs}` : ''}`;
    const what = `${op.method} ${decodeURIComponent(url).slice(0, 300)} ${body?.slice(0, 300) ?? ''}`;
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      http(`${this.url}${url}`, { method: op.method, headers, body }),
      new Promise<HttpResponse>((resolve) => {
        timer = setTimeout(
          () => resolve({ status: 0, headers: {}, text: 'no answer in 10 s', body: undefined }),
          10_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (r.status === 200 && op.path === '/admin/v1/prices/{symbol}' && body) {
      const price = Number(JSON.parse(body).indexPrice);
      const listed = this.known.symbols.find((s) => path.includes(s));
      // An absurd index taken (a malformed value can be a valid decimal) is not followed: the next
      // plausible one, near the last sane price, brings the market back.
      if (listed && Number.isFinite(price) && price < 1e9) this.known.index.set(listed, price);
    }
    return [what, r];
  }
}
