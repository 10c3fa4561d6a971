import { createHmac } from 'node:crypto';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { http, type HttpResponse, signed } from '@perp/testing';
import { deposit, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** What the valid request answers: proof that the variants get past the signature check. */
  answers: number;
  /** A valid request's parameters; each is broken in turn. */
  params: Record<string, string>;
}

const ORDER = {
  symbol: BTC,
  side: 'BUY',
  type: 'LIMIT',
  price: '40000',
  quantity: '0.01',
  timeInForce: 'GTC',
};
const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/fapi/v1/order', answers: 200, params: ORDER },
  { method: 'POST', path: '/fapi/v1/order/test', answers: 200, params: ORDER },
  {
    method: 'PUT',
    path: '/fapi/v1/order',
    answers: 404,
    params: {
      symbol: BTC,
      orderId: '00000000-0000-4000-8000-000000000000',
      side: 'BUY',
      quantity: '0.01',
      price: '41000',
    },
  },
  {
    method: 'DELETE',
    path: '/fapi/v1/order',
    answers: 400,
    params: { symbol: BTC, origClientOrderId: 'none' },
  },
  { method: 'GET', path: '/fapi/v1/order', answers: 404, params: { symbol: BTC, origClientOrderId: 'none' } },
  {
    method: 'POST',
    path: '/fapi/v1/batchOrders',
    answers: 200,
    params: { batchOrders: JSON.stringify([ORDER]) },
  },
  {
    method: 'DELETE',
    path: '/fapi/v1/batchOrders',
    answers: 200,
    params: { symbol: BTC, orderIdList: '["x"]' },
  },
  { method: 'DELETE', path: '/fapi/v1/allOpenOrders', answers: 200, params: { symbol: BTC } },
  { method: 'POST', path: '/fapi/v1/leverage', answers: 200, params: { symbol: BTC, leverage: '10' } },
  {
    method: 'POST',
    path: '/fapi/v1/marginType',
    answers: 200,
    params: { symbol: BTC, marginType: 'CROSSED' },
  },
  { method: 'POST', path: '/fapi/v1/positionSide/dual', answers: 200, params: { dualSidePosition: 'false' } },
  {
    method: 'GET',
    path: '/fapi/v1/allOrders',
    answers: 200,
    params: { symbol: BTC, limit: '10', startTime: '0' },
  },
  { method: 'GET', path: '/fapi/v1/userTrades', answers: 200, params: { symbol: BTC, limit: '10' } },
  {
    method: 'GET',
    path: '/fapi/v1/income',
    answers: 200,
    params: { incomeType: 'COMMISSION', limit: '10', startTime: '0' },
  },
];

/** One bad value of each kind; every parameter of every endpoint gets each in turn. */
const BAD_VALUES: [kind: string, value: string][] = [
  ['empty', ''],
  ['non-numeric', 'abc'],
  ['NaN', 'NaN'],
  ['infinite', 'Infinity'],
  ['negative', '-1'],
  ['huge exponent', '1e400'],
  ['400 digits', '9'.repeat(400)],
  ['unicode', 'BTC\u{1F600}ＵＳＤＴ'],
  ['control characters', 'a\u0000b\u202Ec'],
  ['JSON fragment', '{"$gt":""}'],
  ['long string', 'x'.repeat(10_000)],
];

// New Order, modify, cancel, batches, settings and history reads with every kind of malformed
// input, in the query, a form body and a JSON body: each answer is a documented 4xx envelope,
// never a 500, and nothing in the account changes.
describe('FAPI malformed input', () => {
  let ex: InProcessExchange;
  let t: Trader;

  /** Signs `query + body` as Binance clients do, with any query and body bytes. */
  const send = (
    method: string,
    path: string,
    query: string,
    body?: { text: string; type: string },
  ): Promise<HttpResponse> => {
    const q = `${query}${query ? '&' : ''}timestamp=${Date.now()}`;
    const signature = createHmac('sha256', t.key.secret_key)
      .update(q + (body?.text ?? ''))
      .digest('hex');
    return http(`${ex.url}${path}?${q}&signature=${signature}`, {
      method,
      headers: { 'x-mbx-apikey': t.key.api_key, ...(body ? { 'content-type': body.type } : {}) },
      body: body?.text,
    });
  };

  /** Why `r` is not a documented refusal (4xx with a FAPI envelope), or undefined when it is one. */
  const undocumented = (r: HttpResponse, what: string): string | undefined => {
    const envelope =
      (typeof r.body?.code === 'number' && typeof r.body?.msg === 'string') ||
      (r.body?.success === false && typeof r.body?.error?.code === 'string');
    return r.status >= 400 && r.status < 500 && envelope
      ? undefined
      : `${what}: ${r.status} ${r.text.slice(0, 200)}`;
  };

  /** Orders an accepted variant may have placed are cancelled; nothing filled, nothing was paid. */
  const accountUnchanged = async () => {
    await signed(ex.url, '/fapi/v1/allOpenOrders', t.key, { method: 'DELETE', params: { symbol: BTC } });
    const open = await signed(ex.url, '/fapi/v1/openOrders', t.key);
    expect(open).toMatchObject({ status: 200, body: [] });
    const trades = await signed(ex.url, '/fapi/v1/userTrades', t.key, { params: { symbol: BTC } });
    expect(trades).toMatchObject({ status: 200, body: [] });
    const account = await signed(ex.url, '/fapi/v2/account', t.key);
    expect(account.body.totalWalletBalance).toMatch(/^1000(\.0+)?$/);
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({
      RATE_LIMIT_WEIGHT_PER_MIN: '1000000',
      RATE_LIMIT_ORDERS_PER_10S: '1000000',
      RATE_LIMIT_ORDERS_PER_MIN: '1000000',
    });
    t = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, t.address, '1000');
  });

  afterAll(async () => {
    await ex?.close();
  });

  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s: each parameter missing, duplicated and set to each bad value, in the query',
    async (_name, e) => {
      const failures: string[] = [];
      const valid = await send(e.method, e.path, new URLSearchParams(e.params).toString());
      expect([valid.status, valid.text.slice(0, 200)]).toEqual([e.answers, expect.any(String)]);
      for (const name of Object.keys(e.params)) {
        const others = Object.entries(e.params).filter(([k]) => k !== name);
        const variants: [string, [string, string][]][] = [
          ['missing', others],
          ['duplicated', [...Object.entries(e.params), [name, e.params[name]!]]],
          ...BAD_VALUES.map(([kind, v]): [string, [string, string][]] => [kind, [...others, [name, v]]]),
        ];
        for (const [kind, entries] of variants) {
          const r = await send(e.method, e.path, new URLSearchParams(entries).toString());
          // Leaving out an optional parameter, or sending it empty, is the same as not sending it.
          if (r.status === 200 && (kind === 'missing' || kind === 'empty')) continue;
          const why = undocumented(r, `${name} ${kind}`);
          if (why) failures.push(why);
        }
      }
      expect(failures).toEqual([]);
      await accountUnchanged();
    },
    60_000,
  );

  it('the same in a form body and in a JSON body with wrong JSON types', async () => {
    const wrongTypes: unknown[] = [true, -1, {}, [], ['BUY'], { $ne: 1 }, 1e308];
    const failures: string[] = [];
    const check = (r: HttpResponse, what: string, mayAccept: boolean) => {
      if (r.status === 200 && mayAccept) return;
      const why = undocumented(r, what);
      if (why) failures.push(why);
    };
    for (const e of ENDPOINTS.filter((x) => x.method !== 'GET')) {
      // The valid request in each body form answers as in the query: the variants get past the signature.
      const form = new URLSearchParams(e.params).toString();
      const asForm = await send(e.method, e.path, '', {
        text: form,
        type: 'application/x-www-form-urlencoded',
      });
      const asJson = await send(e.method, e.path, '', {
        text: JSON.stringify(e.params),
        type: 'application/json',
      });
      expect([e.path, asForm.status, asJson.status]).toEqual([e.path, e.answers, e.answers]);
      await signed(ex.url, '/fapi/v1/allOpenOrders', t.key, { method: 'DELETE', params: { symbol: BTC } });
      for (const name of Object.keys(e.params)) {
        for (const [kind, v] of BAD_VALUES) {
          const form = new URLSearchParams({ ...e.params, [name]: v }).toString();
          check(
            await send(e.method, e.path, '', { text: form, type: 'application/x-www-form-urlencoded' }),
            `${e.method} ${e.path} form ${name} ${kind}`,
            kind === 'empty',
          );
        }
        for (const v of wrongTypes) {
          const body = JSON.stringify({ ...e.params, [name]: v });
          check(
            await send(e.method, e.path, '', { text: body, type: 'application/json' }),
            `${e.method} ${e.path} JSON ${name}=${JSON.stringify(v)}`,
            false,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    await accountUnchanged();
  }, 120_000);

  it('bodies that are not what they claim, and oversized ones', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"symbol": "BTCUSDT",'],
      ['application/json', '[1,2,3]'],
      ['application/json', '"a string"'],
      ['application/json', 'null'],
      ['application/json', '{"__proto__": {"admin": true}, "symbol": "BTCUSDT"}'],
      ['application/x-www-form-urlencoded', '%%%=%E0%A4%A'],
      ['text/plain', 'symbol=BTCUSDT'],
      ['application/xml', '<order/>'],
    ];
    const oversized: [string, string][] = [
      ['application/json', JSON.stringify({ symbol: BTC, pad: 'x'.repeat(2 * 1024 * 1024) })],
      ['application/x-www-form-urlencoded', `symbol=${BTC}&pad=${'x'.repeat(2 * 1024 * 1024)}`],
    ];
    const failures: string[] = [];
    for (const [type, text] of bodies) {
      const why = undocumented(
        await send('POST', '/fapi/v1/order', '', { text, type }).catch((e: Error) => {
          throw new Error(`${type} ${text.slice(0, 40)}: ${e.message}`);
        }),
        `${type} ${text.slice(0, 40)}`,
      );
      if (why) failures.push(why);
    }
    // Above the 1 MiB body limit the server answers 413 without reading on, and may close the
    // connection while the client is still writing: either way nothing is processed.
    for (const [type, text] of oversized) {
      const r = await send('POST', '/fapi/v1/order', '', { text, type }).catch(() => undefined);
      if (r && r.status !== 413) failures.push(`oversized ${type}: ${r.status} ${r.text.slice(0, 200)}`);
      else if (r) {
        const why = undocumented(r, `oversized ${type}`);
        if (why) failures.push(why);
      }
    }
    expect(failures).toEqual([]);
    // A query beyond the server's header limit is refused by the HTTP layer, not by a crash.
    // Node answers 431 and closes; the client may see the close before the answer.
    const long = await send('GET', '/fapi/v1/openOrders', `symbol=${'x'.repeat(20_000)}`).then(
      (r) => r.status,
      () => 'closed',
    );
    expect([431, 'closed']).toContain(long);
    expect((await http(`${ex.url}/fapi/v1/ping`)).status).toBe(200);
    await accountUnchanged();
  });
});
