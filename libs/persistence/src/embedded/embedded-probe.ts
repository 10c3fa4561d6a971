/**
 * Test support, run as its own Node process (Jest's CommonJS runtime cannot load PGlite, which is
 * ESM). Opens the database of a data directory exactly as the embedded exchange does, reports what
 * it finds, writes one more entry, then stops cleanly, or waits to be killed with `--hold`.
 *
 *   node embedded-probe.js <dataDir> <value> [--hold]
 *
 * Prints one JSON line: { applied, values, incomes, pid, dbThread } (values and incomes as found
 * before writing; dbThread: the database thread's OS id where its priority was lowered).
 */
import { DataSource } from 'typeorm';
import { openDatabase } from '../database';
import { AdminAuditEntity } from '../entities/admin-audit.entity';
import { stableUuid } from '@perp/contracts';
import { IncomeRepository } from '../repositories/income.repository';
import { ProcessedOffsetRepository } from '../repositories/processed-offset.repository';
import { WriteBatch } from '../repositories/write-batch';

async function main(): Promise<void> {
  const [dataDir, value, hold] = process.argv.slice(2);
  const db = await openDatabase({ dataDir });
  const ds: DataSource = db.dataSource;
  const { applied } = db;
  const audit = ds.getRepository(AdminAuditEntity);
  const values = (await audit.find({ order: { createdAt: 'ASC' } })).map(
    (e) => (e.payload as { value: string }).value,
  );
  const incomes = new IncomeRepository(ds.manager);
  const user = stableUuid('probe-user');
  const found = (await incomes.listByUser(user)).map((i) => i.income).reverse();

  // Concurrent callers share the single pooled connection.
  const n = values.length;
  await Promise.all([
    audit.insert({ id: stableUuid(`audit-${value}`), actor: 'probe', action: 'write', payload: { value } }),
    // The projections' turn: the mark and the rows in one statement (writable CTEs on PGlite).
    new ProcessedOffsetRepository(ds.manager).applyWritesOnce(
      { consumer: 'probe', topic: 'probe', partition: 0, offset: String(n + 1) },
      incomes.insertInto(new WriteBatch(), [
        {
          id: stableUuid(`income-${value}`),
          userId: user,
          symbol: 'BTCUSDT',
          incomeType: 'REALIZED_PNL',
          income: `${n + 1}23456789.123456789012345678`,
          asset: 'USDT',
          info: value,
          tradeId: '',
          time: 1_700_000_000_000 + n,
        },
      ]),
    ),
  ]);
  process.stdout.write(
    `${JSON.stringify({ applied, values, incomes: found, pid: process.pid, dbThread: db.embedded?.threadId })}\n`,
  );
  if (hold === '--hold') {
    setInterval(() => undefined, 60_000);
    return;
  }
  await db.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
