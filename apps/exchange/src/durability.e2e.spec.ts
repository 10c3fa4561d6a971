import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAppProcess } from '@perp/testing';

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
});
