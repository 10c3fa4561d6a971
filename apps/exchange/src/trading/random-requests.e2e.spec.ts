import { createHmac } from 'node:crypto';
import { Wallet } from 'ethers';
import { http, type HttpResponse, login } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import {
  documentedOperations,
  type Known,
  type Operation,
  planValues,
  type RequestPlan,
  requestPlans,
} from '../testing/random-requests';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

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
const ZERO = /^-?0(\.0+)?$/;
/** RANDOM_REQUESTS_SEED and RANDOM_REQUESTS: another run of other requests (RANDOM_REQUESTS_REPORT=1 counts answers per operation). */
const SEED = Number(process.env.RANDOM_REQUESTS_SEED ?? 20261129);
const COUNT = Number(process.env.RANDOM_REQUESTS ?? 2500);

interface User extends Trader {
  token: string;
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

// Thousands of random requests, plausible with now and then a rule broken, from two users across
// every documented operation (orders of every type, batches, cancels, modifies, algo orders,
// settings, reads, listen keys, native orders, operator price moves that liquidate): no answer is
// a 5xx or outside the documented envelopes, the process stays ready, and the books balance exactly.
describe('random requests to every documented operation', () => {
  let ex: InProcessExchange;
  const users: User[] = [];
  const known: Known = {
    symbols: [],
    index: new Map(),
    orderIds: [],
    clientOrderIds: [],
    algoIds: [],
    listenKeys: [],
    addresses: [],
    now: Date.now(),
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({
      RATE_LIMIT_WEIGHT_PER_MIN: '100000000',
      RATE_LIMIT_ORDERS_PER_10S: '100000000',
      RATE_LIMIT_ORDERS_PER_MIN: '100000000',
    });
    for (let i = 0; i < 2; i++) {
      const wallet = Wallet.createRandom();
      const t = await newTrader(ex.url, wallet);
      users.push({ ...t, token: await login(ex.url, wallet) });
      known.addresses.push(t.address);
    }
    const info = await http(`${ex.url}/fapi/v1/exchangeInfo`);
    known.symbols = (info.body.symbols as { symbol: string }[]).map((s) => s.symbol).slice(0, 3);
  });

  /** Each run starts funded, at the same prices: what an earlier run liquidated trades again. */
  async function fundedAtStartPrices(): Promise<void> {
    for (const u of users) await deposit(ex.url, ex.adminToken, u.address, '20000');
    for (const [i, symbol] of known.symbols.entries()) {
      const price = [50_000, 3_000, 150][i] ?? 100;
      const r = await adminRequest(ex.url, ex.adminToken, `/prices/${symbol}`, 'POST', {
        indexPrice: String(price),
      });
      expect(r.status).toBe(200);
      known.index.set(symbol, price);
    }
  }

  afterAll(async () => {
    await ex?.close();
  });

  /** The request `plan` makes of `op`, sent. */
  async function send(op: Operation, plan: RequestPlan): Promise<[string, HttpResponse]> {
    const user = users[plan.user]!;
    known.now = Date.now();
    const value = planValues(plan, op, known);
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
    else if (op.security === 'adminToken') headers.authorization = `Bearer ${ex.adminToken}`;
    const url = `${path}${qs ? `?${qs}` : ''}`;
    const what = `${op.method} ${decodeURIComponent(url).slice(0, 300)} ${body?.slice(0, 300) ?? ''}`;
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      http(`${ex.url}${url}`, { method: op.method, headers, body }),
      new Promise<HttpResponse>((resolve) => {
        timer = setTimeout(
          () => resolve({ status: 0, headers: {}, text: 'no answer in 10 s', body: undefined }),
          10_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (r.status === 200 && op.path === '/admin/v1/prices/{symbol}' && body) {
      const price = Number(JSON.parse(body).indexPrice);
      const listed = known.symbols.find((s) => path.includes(s));
      // An absurd index taken (a malformed value can be a valid decimal) is not followed: the next
      // plausible one, near the last sane price, brings the market back.
      if (listed && Number.isFinite(price) && price < 1e9) known.index.set(listed, price);
    }
    return [what, r];
  }

  /**
   * Sends the plans, `clients` at a time (each takes the next plan when its last is answered);
   * stops at the first request left unanswered: something is stuck, the rest would only wait too.
   */
  async function run(count: number, seed: number, clients: number) {
    await fundedAtStartPrices();
    const ops = [
      ...documentedOperations('fapi.json', SKIP),
      ...documentedOperations('native.json', SKIP),
    ].flatMap((op) => Array<Operation>(WEIGHTS[`${op.method} ${op.path}`] ?? 1).fill(op));
    const plans = requestPlans(ops.length, count, seed);
    const failures: string[] = [];
    const answered = new Map<string, number>();
    let next = 0;
    let stuck = false;
    const client = async () => {
      while (next < plans.length && !stuck) {
        const plan = plans[next++]!;
        const op = ops[plan.op]!;
        const [what, r] = await send(op, plan);
        const why = undocumented(r);
        if (why) failures.push(`${what} -> ${why}`);
        else learn(known, r.body);
        if (r.status === 0) stuck = true;
        const key = `${op.method} ${op.path} ${r.status < 300 ? '2xx' : r.status}`;
        answered.set(key, (answered.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    if (process.env.RANDOM_REQUESTS_REPORT)
      console.log(
        [...answered]
          .sort()
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
    expect(failures).toEqual([]);
    // Orders were plausible enough to be taken (10 to 50 per 2,500 requests, as prices move and
    // accounts are liquidated): the run reached the trading handlers, not only the validation.
    expect(answered.get('POST /fapi/v1/order 2xx')).toBeGreaterThan(count / 250);
    expect(answered.get('POST /api/v1/orders 2xx')).toBeGreaterThan(0);
    expect((await http(`${ex.url}/readyz`)).status).toBe(200);
    const solvency = await eventually(
      () => adminRequest(ex.url, ex.adminToken, '/solvency', 'GET'),
      (r) => r.status === 200 && r.body.unsettled_symbols.length === 0 && ZERO.test(r.body.difference),
    );
    expect(solvency.body).toMatchObject({
      difference: expect.stringMatching(ZERO),
      unsettled_symbols: [],
    });
  }

  it('answers each with a 2xx or a documented 4xx, stays ready, and the books balance', async () => {
    await run(COUNT, SEED, 1);
  }, 300_000);

  // The same users' requests overlapping (orders, cancels and modifies in flight together): the
  // order of arrival is no longer the plan's, so a failure here may need a few runs to reproduce.
  it('the same with eight clients sending at once', async () => {
    await run(COUNT / 2, SEED + 1, 8);
  }, 300_000);
});
