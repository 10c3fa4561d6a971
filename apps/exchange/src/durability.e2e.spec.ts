import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signed, startAppProcess } from '@perp/testing';
import { ccxtClient, deposit, newTrader, type Trader } from './trading/trading.harness';

/** An acknowledged change survives kill -9: the memory bus journal under DATA_DIR is replayed on start. */
describe('embedded exchange durability', () => {
  it('keeps an admin market change across kill -9 and restart on the same data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const statusOf = async (url: string, symbol: string) => {
      const info = (await (await fetch(`${url}/fapi/v1/exchangeInfo`)).json()) as any;
      return info.symbols.find((s: { symbol: string }) => s.symbol === symbol)?.status;
    };

    const first = await startAppProcess('exchange', env);
    const r = await fetch(`${first.url}/admin/v1/markets/ETHUSDT/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(200);
    expect(await statusOf(first.url, 'ETHUSDT')).toBe('HALT');
    await first.stop('SIGKILL');

    const second = await startAppProcess('exchange', env);
    try {
      expect(await statusOf(second.url, 'ETHUSDT')).toBe('HALT');
      expect(await statusOf(second.url, 'BTCUSDT')).toBe('TRADING');
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('reads every account as it was after a restart, whether the account changed since the snapshot or not', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perp-durable-'));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: 'durability-admin-token-123' };
    const seen = async (url: string, t: Trader) => {
      const c = ccxtClient(url, t);
      const [balance, open, algos] = await Promise.all([
        c.fetchBalance(),
        c.fetchOpenOrders('BTC/USDT:USDT'),
        signed(url, '/fapi/v1/openAlgoOrders', t.key),
      ]);
      return {
        usdt: balance['USDT'],
        open: open.map((o) => [o.id, o.side, o.price, o.amount]),
        algos: (algos.body as { algoId: number }[]).map((o) => o.algoId),
      };
    };

    const first = await startAppProcess('exchange', env);
    const prepare = async () => {
      const a = await newTrader(first.url);
      const b = await newTrader(first.url);
      await deposit(first.url, env.ADMIN_TOKEN, a.address, '1000');
      await deposit(first.url, env.ADMIN_TOKEN, b.address, '2500');
      const index = await fetch(`${first.url}/admin/v1/prices/BTCUSDT`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ indexPrice: '50000' }),
      });
      expect(index.status).toBe(200);
      await ccxtClient(first.url, b).createOrder('BTC/USDT:USDT', 'limit', 'buy', 0.01, 40000);
      const stop = await signed(first.url, '/fapi/v1/algoOrder', b.key, {
        method: 'POST',
        params: {
          symbol: 'BTCUSDT',
          side: 'BUY',
          type: 'STOP_MARKET',
          triggerPrice: '90000',
          quantity: '0.01',
        },
      });
      expect(stop.status).toBe(200);
      const aBefore = await seen(first.url, a);
      const bBefore = await seen(first.url, b);
      expect(aBefore.usdt).toEqual({ free: 1000, used: 0, total: 1000 });
      expect([bBefore.open.length, bBefore.algos]).toEqual([1, [stop.body.algoId]]);
      return { a, b, aBefore, bBefore };
    };
    const { a, b, aBefore, bBefore } = await prepare().catch(async (e: unknown) => {
      await first.stop();
      throw e;
    });
    await first.stop('SIGTERM'); // every partition snapshotted: the restart replays nothing

    const second = await startAppProcess('exchange', env);
    try {
      expect(await seen(second.url, a)).toEqual(aBefore);
      expect(await seen(second.url, b)).toEqual(bBefore);
      await deposit(second.url, env.ADMIN_TOKEN, a.address, '1');
    } finally {
      await second.stop('SIGKILL'); // a's deposit is after the snapshot: replayed; b is only restored
    }

    const third = await startAppProcess('exchange', env);
    try {
      expect((await seen(third.url, a)).usdt).toEqual({ free: 1001, used: 0, total: 1001 });
      expect(await seen(third.url, b)).toEqual(bBefore);
    } finally {
      await third.stop();
    }
  }, 90_000);
});
