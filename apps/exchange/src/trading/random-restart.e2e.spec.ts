import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, type RunningApp, startAppProcess } from '@perp/testing';
import { RandomRequestClient, type RandomUser } from '../testing/random-request-client';
import { adminRequest, eventually } from './trading.harness';

const ADMIN = 'random-restart-admin-token-0123';
const ZERO = /^-?0(\.0+)?$/;
/** RANDOM_RESTART_SEED and RANDOM_RESTART_REQUESTS (per round): other runs. */
const SEED = Number(process.env.RANDOM_RESTART_SEED ?? 7);
const COUNT = Number(process.env.RANDOM_RESTART_REQUESTS ?? 600);
/** Fields that say when a read was made, not what it read. */
const NOW_FIELDS = new Set(['E', 'T', 'serverTime', 'openTime', 'closeTime', 'updated_at']);

/** `v` without the fields that change with the time of reading (`time` too, on a top-level object). */
function unstamped(v: unknown, top = true): unknown {
  if (Array.isArray(v)) return v.map((x) => unstamped(x, false));
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !NOW_FIELDS.has(k) && !(top && k === 'time'))
      .map(([k, x]) => [k, unstamped(x, false)]),
  );
}

// The state of an exchange is a function of its snapshots and its log: after random requests of
// every kind (orders, cancels, amends, algo orders, settings, pauses and resumes, price moves that
// liquidate), every read of every user and market is the same after kill -9 and a restart (the
// stages replay from older snapshots) and after a clean stop (they restore the latest). Market
// statuses replayed from the live list once lost the orders taken before a pause.
describe('random requests, then a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-random-restart-'));
  const env = {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: ADMIN,
    RATE_LIMIT_WEIGHT_PER_MIN: '100000000',
    RATE_LIMIT_ORDERS_PER_10S: '100000000',
    RATE_LIMIT_ORDERS_PER_MIN: '100000000',
  };
  let ex: RunningApp | undefined;
  let client: RandomRequestClient;

  afterAll(async () => {
    await ex?.stop();
  });

  const signedRead = async (u: RandomUser, path: string, params: Record<string, string> = {}) => {
    const qs = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString();
    const signature = createHmac('sha256', u.key.secret_key).update(qs).digest('hex');
    return http(`${client.url}${path}?${qs}&signature=${signature}`, {
      headers: { 'x-mbx-apikey': u.key.api_key },
    });
  };

  /** Every read of the two users and the three markets, by name. */
  async function reads(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const keep = (name: string, r: { status: number; body: unknown }) =>
      (out[name] = { status: r.status, body: unstamped(r.body) });
    for (const [i, u] of client.users.entries()) {
      for (const path of [
        '/fapi/v2/account',
        '/fapi/v2/balance',
        '/fapi/v2/positionRisk',
        '/fapi/v1/openOrders',
        '/fapi/v1/openAlgoOrders',
        '/fapi/v1/positionSide/dual',
        '/fapi/v1/adlQuantile',
        '/fapi/v1/accountConfig',
        '/fapi/v1/symbolConfig',
      ])
        keep(`user ${i} ${path}`, await signedRead(u, path));
      keep(`user ${i} income`, await signedRead(u, '/fapi/v1/income', { limit: '1000' }));
      for (const path of ['/api/v1/account', '/api/v1/positions', '/api/v1/orders'])
        keep(
          `user ${i} ${path}`,
          await http(`${client.url}${path}`, { headers: { authorization: `Bearer ${u.token}` } }),
        );
      for (const symbol of client.known.symbols)
        for (const path of ['/fapi/v1/allOrders', '/fapi/v1/userTrades', '/fapi/v1/allAlgoOrders'])
          keep(`user ${i} ${path} ${symbol}`, await signedRead(u, path, { symbol, limit: '1000' }));
    }
    for (const symbol of client.known.symbols)
      for (const path of [
        `/fapi/v1/depth?symbol=${symbol}&limit=1000`,
        `/fapi/v1/trades?symbol=${symbol}&limit=1000`,
        `/fapi/v1/aggTrades?symbol=${symbol}&limit=1000`,
        `/fapi/v1/ticker/24hr?symbol=${symbol}`,
        `/fapi/v1/ticker/bookTicker?symbol=${symbol}`,
        `/fapi/v1/premiumIndex?symbol=${symbol}`,
        `/fapi/v1/openInterest?symbol=${symbol}`,
        `/fapi/v1/fundingRate?symbol=${symbol}`,
        `/api/v1/open-interest/${symbol}`,
      ])
        keep(path, await http(`${client.url}${path}`));
    keep('exchangeInfo', await http(`${client.url}/fapi/v1/exchangeInfo`));
    for (const path of ['/solvency', '/insurance-fund'])
      keep(path, await adminRequest(client.url, ADMIN, path, 'GET'));
    return out;
  }

  /** The reads once the books balance and two in a row are the same (projections caught up). */
  async function settledReads(): Promise<Record<string, unknown>> {
    const solvency = await eventually(
      () => adminRequest(client.url, ADMIN, '/solvency', 'GET'),
      (r) => r.status === 200 && r.body.unsettled_symbols.length === 0 && ZERO.test(r.body.difference),
      20_000,
    );
    expect(solvency.body).toMatchObject({ difference: expect.stringMatching(ZERO), unsettled_symbols: [] });
    let last = JSON.stringify(await reads());
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const now = JSON.stringify(await reads());
      if (now === last) return JSON.parse(now) as Record<string, unknown>;
      last = now;
    }
    throw new Error('the reads never settled');
  }

  it('reads the same after kill -9 and a restart, and after a clean stop and a restart', async () => {
    ex = await startAppProcess('exchange', env);
    client = new RandomRequestClient(ex.url, ADMIN);
    await client.join();
    for (const [round, signal] of (['SIGKILL', 'SIGTERM'] as const).entries()) {
      await client.fundAtStartPrices();
      const { failures, answered } = await client.run(COUNT, SEED + round, 4);
      expect(failures).toEqual([]);
      expect(answered.get('POST /fapi/v1/order 2xx')).toBeGreaterThan(COUNT / 250);
      const before = await settledReads();
      await ex.stop(signal);
      ex = await startAppProcess('exchange', env);
      client.url = ex.url;
      const after = await settledReads();
      const differing = Object.keys(before).filter(
        (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
      );
      expect({
        signal,
        differing,
        first: differing[0] && [before[differing[0]], after[differing[0]]],
      }).toEqual({
        signal,
        differing: [],
        first: undefined,
      });
    }
  }, 300_000);
});
