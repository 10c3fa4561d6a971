import { createHmac } from 'node:crypto';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { HttpFastLanes, Metrics } from '@perp/runtime';
import { createKey, json, type KeyPair, login } from '@perp/testing';
import { Wallet } from 'ethers';

jest.setTimeout(90_000);

type Way = 'lane' | 'nest';
interface Sent {
  method: 'POST' | 'DELETE';
  params: string;
  /** Parameters in a form body (ccxt's way) instead of the query. */
  form?: boolean;
  key?: KeyPair;
  secret?: string;
  timestamp?: number;
  ip?: string;
}

// The same signed request two ways: as sent (a plain query or an exact form content type, which a
// lane takes) and with `USDT` percent-encoded in the query or `; charset=utf-8` on the form's
// content type, which Fastify and Nest answer. Each lane answer must equal that one (ids and times
// aside).
describe('signed order lanes answer as the Nest routes do', () => {
  let ex: InProcessExchange;
  let trader: KeyPair & { id: string };
  let clients = 0;
  /** A client address of its own per request (trusted proxy: loopback), so each starts a fresh window. */
  const freshIp = () => `10.8.${Math.floor(++clients / 250)}.${clients % 250}`;
  const WEIGHT_PER_MIN = 4;
  const ORDERS_PER_10S = 40;

  beforeAll(async () => {
    ex = await startInProcessExchange({
      RATE_LIMIT_WEIGHT_PER_MIN: String(WEIGHT_PER_MIN),
      RATE_LIMIT_ORDERS_PER_10S: String(ORDERS_PER_10S),
      TRUSTED_PROXIES: '127.0.0.1',
    });
    trader = await newKey(true);
    const index = await json(
      `${ex.url}/admin/v1/prices/BTCUSDT`,
      'POST',
      { indexPrice: '50000' },
      ex.adminToken,
    );
    expect(index.status).toBe(200);
  });
  afterAll(() => ex?.close());

  /** Each key's wallet token (to list the keys). */
  const tokens = new Map<string, string>();

  async function newKey(funded: boolean): Promise<KeyPair & { id: string }> {
    const wallet = Wallet.createRandom();
    const token = await login(ex.url, wallet);
    const key = await createKey(ex.url, token);
    tokens.set(key.api_key, token);
    if (funded) {
      const body = { address: wallet.address.toLowerCase(), asset: 'USDT', amount: '100000' };
      expect((await json(`${ex.url}/admin/v1/deposits`, 'POST', body, ex.adminToken)).status).toBe(200);
    }
    return key;
  }

  const taken = () => ex.app.get(HttpFastLanes).taken;
  // Ids and times differ between the two requests (an envelope's timestamp when a second turns).
  const IDS = /"(orderId|clientOrderId|time|updateTime|timestamp)":("[^"]*"|\d+)/g;
  const COUNTS = new Set(['x-mbx-order-count-10s', 'x-mbx-order-count-1m']);

  async function send(way: Way, s: Sent) {
    const key = s.key ?? trader;
    let params = `${s.params}&timestamp=${s.timestamp ?? Date.now()}`;
    if (way === 'nest' && !s.form) params = params.replace('USDT', '%55SDT');
    const signature = createHmac('sha256', s.secret ?? key.secret_key)
      .update(params)
      .digest('hex');
    const headers: Record<string, string> = { 'x-forwarded-for': s.ip ?? freshIp() };
    if (key.api_key !== '') headers['x-mbx-apikey'] = key.api_key;
    let url = `${ex.url}/fapi/v1/order`;
    let body: string | undefined;
    if (s.form) {
      body = `${params}&signature=${signature}`;
      headers['content-type'] = `application/x-www-form-urlencoded${way === 'nest' ? '; charset=utf-8' : ''}`;
    } else url += `?${params}&signature=${signature}`;
    const r = await fetch(url, { method: s.method, headers, body });
    return {
      status: r.status,
      // Order counts go up by one per request of the account: present, compared apart.
      headers: Object.fromEntries(
        [...r.headers]
          .filter(([name]) => !['date', 'retry-after'].includes(name))
          .map(([name, value]) => [name, COUNTS.has(name) ? 'n' : value]),
      ),
      counts: [...COUNTS].map((name) => r.headers.get(name)),
      retryAfter: r.headers.get('retry-after') !== null,
      body: (await r.text()).replace(IDS, '"$1":0'),
    };
  }

  /** The lane's answer (taken by it), then Nest's (not taken), which it must equal. */
  async function both(s: Sent | ((way: Way) => Sent)) {
    const of = (way: Way) => (typeof s === 'function' ? s(way) : s);
    const before = taken();
    const lane = await send('lane', of('lane'));
    expect(taken()).toBe(before + 1);
    const nest = await send('nest', of('nest'));
    expect(taken()).toBe(before + 1);
    expect({ ...lane, counts: [] }).toEqual({ ...nest, counts: [] });
    return lane;
  }

  const LIMIT = 'symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.010&price=40000';

  it.each([
    ['a resting LIMIT order, query', { method: 'POST', params: LIMIT }],
    ['a resting LIMIT order, form body', { method: 'POST', params: LIMIT, form: true }],
    ['a missing quantity (-1102)', { method: 'POST', params: 'symbol=BTCUSDT&side=BUY&type=LIMIT&price=1' }],
    ['an unknown symbol (-1121)', { method: 'POST', params: LIMIT.replace('BTCUSDT', 'NOPEUSDT') }],
    ['a price off the tick (-4014)', { method: 'POST', params: LIMIT.replace('40000', '40000.00001') }],
    [
      'a timestamp out of the window (-1021)',
      { method: 'POST', params: LIMIT, timestamp: Date.now() - 120_000 },
    ],
    ['a bad signature (401)', { method: 'POST', params: LIMIT, secret: 'f'.repeat(64) }],
    ['no API key (401)', { method: 'POST', params: LIMIT, key: { api_key: '', secret_key: 'x' } }],
    [
      'a cancel of an unknown order (-2011)',
      { method: 'DELETE', params: 'symbol=BTCUSDT&origClientOrderId=nope' },
    ],
    [
      'a cancel without an order reference (-1102)',
      { method: 'DELETE', params: 'symbol=BTCUSDT', form: true },
    ],
  ] as [string, Sent][])('%s: status, headers, body', async (_, s) => {
    const lane = await both(s);
    expect(lane.headers['x-mbx-used-weight-1m']).toBe('1');
  });

  it("a client IP outside the key's whitelist, then a disabled key: the same refusals", async () => {
    const key = await newKey(true);
    const token = tokens.get(key.api_key);
    const path = `${ex.url}/api/v1/api-keys/${key.id}`;
    expect((await json(path, 'PUT', { ip_whitelist: '10.0.0.1' }, token)).status).toBe(200);
    // The refusal names the address: both ways from one, each the other's equal but for its weight.
    const ip = freshIp();
    const before = taken();
    const outside = await send('lane', { method: 'POST', params: LIMIT, key, ip });
    const viaNest = await send('nest', { method: 'POST', params: LIMIT, key, ip });
    expect(taken()).toBe(before + 1);
    expect(outside.status).toBe(403);
    expect(JSON.parse(outside.body).error.code).toBe('IP_NOT_ALLOWED');
    expect([outside.body, outside.headers['x-mbx-used-weight-1m']]).toEqual([viaNest.body, '1']);
    expect(viaNest.headers['x-mbx-used-weight-1m']).toBe('2');
    expect((await json(path, 'PUT', { ip_whitelist: '', status: 'disabled' }, token)).status).toBe(200);
    const disabled = await both({ method: 'DELETE', params: 'symbol=BTCUSDT&origClientOrderId=x', key });
    expect([disabled.status, JSON.parse(disabled.body).error.code]).toEqual([401, 'API_KEY_DISABLED']);
  });

  it('cancels a resting order, by the client order id it was placed with', async () => {
    for (const way of ['lane', 'nest'])
      expect(
        (await send('lane', { method: 'POST', params: `${LIMIT}&newClientOrderId=cx-${way}` })).status,
      ).toBe(200);
    const lane = await both((way) => ({
      method: 'DELETE',
      params: `symbol=BTCUSDT&origClientOrderId=cx-${way}`,
    }));
    expect([lane.status, JSON.parse(lane.body).status]).toEqual([200, 'CANCELED']);
  });

  it("counts the account's orders per request, as the Nest route does", async () => {
    const counts = [];
    for (const way of ['lane', 'nest', 'lane'] as Way[])
      counts.push(Number((await send(way, { method: 'POST', params: LIMIT })).counts[0]));
    expect(counts).toEqual([counts[0], counts[0]! + 1, counts[0]! + 2]);
  });

  it("past the account's order count: the same 429 -1003 with Retry-After, nothing placed", async () => {
    const key = await newKey(true);
    // Malformed orders count too (the count comes before the parameters are read).
    const bad = { method: 'POST' as const, params: 'symbol=BTCUSDT', key };
    for (let i = 0; i < ORDERS_PER_10S; i++) expect((await send('lane', bad)).status).toBe(400);
    const lane = await both({ method: 'POST', params: LIMIT, key });
    expect([lane.status, lane.retryAfter, JSON.parse(lane.body).code]).toEqual([429, true, -1003]);
    expect(lane.counts).toEqual([String(ORDERS_PER_10S), String(ORDERS_PER_10S)]);
  });

  it("past the IP's request weight: the same 429 -1003 with Retry-After, before the signature is read", async () => {
    const ip = freshIp();
    for (let i = 0; i < WEIGHT_PER_MIN; i++)
      expect((await send('lane', { method: 'DELETE', params: 'symbol=BTCUSDT', ip })).status).toBe(400);
    const lane = await both({ method: 'POST', params: LIMIT, secret: 'f'.repeat(64), ip });
    expect([lane.status, lane.retryAfter, JSON.parse(lane.body).code]).toEqual([429, true, -1003]);
    expect(lane.headers['x-mbx-used-weight-1m']).toBe(String(WEIGHT_PER_MIN));
  });

  it('leaves JSON bodies, chunked bodies and encoded queries to Fastify and Nest', async () => {
    const before = taken();
    const params = `${LIMIT}&timestamp=${Date.now()}`;
    const sign = (payload: string) => createHmac('sha256', trader.secret_key).update(payload).digest('hex');
    const signature = sign(params);
    const headers = { 'x-mbx-apikey': trader.api_key, 'x-forwarded-for': freshIp() };
    // A JSON body is signed verbatim after the query.
    const r = await fetch(`${ex.url}/fapi/v1/order?${params}&signature=${sign(`${params}{}`)}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(200);
    const chunked = await fetch(`${ex.url}/fapi/v1/order`, {
      method: 'POST',
      headers: {
        ...headers,
        'x-forwarded-for': freshIp(),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new Blob([`${params}&signature=${signature}`]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(200);
    const encoded = await send('nest', { method: 'POST', params: LIMIT });
    expect(encoded.status).toBe(200);
    expect(taken()).toBe(before);
  });

  it("records the key's use on an answered order, not on a refused one", async () => {
    const key = await newKey(true);
    const lastUsed = async () => {
      const keys = await json(`${ex.url}/api/v1/api-keys`, 'GET', undefined, tokens.get(key.api_key));
      return (keys.body as { id: string; last_used_at: string | null }[]).find((k) => k.id === key.id)!
        .last_used_at;
    };
    await send('lane', { method: 'POST', params: LIMIT, key, secret: 'f'.repeat(64) });
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    expect((await send('lane', { method: 'POST', params: LIMIT, key })).status).toBe(200);
    expect(Date.parse((await lastUsed())!)).toBeGreaterThanOrEqual(before);
  });

  it('counts each answer in the request-duration histogram, by method, route and status', async () => {
    const count = async (method: string, status: number) => {
      const text = await ex.app.get(Metrics).registry.metrics();
      const series = `perp_http_request_duration_seconds_count{method="${method}",route="/fapi/v1/order",status="${status}"`;
      const line = text.split('\n').find((l) => l.startsWith(series));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const before = [await count('POST', 200), await count('DELETE', 400)];
    await send('lane', { method: 'POST', params: LIMIT });
    await send('lane', { method: 'DELETE', params: 'symbol=BTCUSDT&origClientOrderId=nope' });
    expect([await count('POST', 200), await count('DELETE', 400)]).toEqual([before[0]! + 1, before[1]! + 1]);
  });
});
