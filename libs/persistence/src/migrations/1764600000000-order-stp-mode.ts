import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Order history keeps each order's self-trade prevention mode, so an order read from Postgres (once
 * its closed-order hot record has expired) answers as it did right after it closed. Rows written
 * before it get New Order's default, the mode they were answered with from Postgres until now.
 */
export class OrderStpMode1764600000000 implements MigrationInterface {
  name = 'OrderStpMode1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE orders ADD COLUMN self_trade_prevention_mode text NOT NULL DEFAULT 'EXPIRE_TAKER'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders DROP COLUMN self_trade_prevention_mode`);
  }
}
