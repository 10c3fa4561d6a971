import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Both sides of a fill share its trade id (income tranId = tradeId): a row is (trade, order). */
export class TradeSides1763800000000 implements MigrationInterface {
  name = 'TradeSides1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE trades DROP CONSTRAINT trades_pkey`);
    await q.query(`ALTER TABLE trades ADD PRIMARY KEY (id, order_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE trades DROP CONSTRAINT trades_pkey`);
    await q.query(`ALTER TABLE trades ADD PRIMARY KEY (id)`);
  }
}
