import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Force orders (liquidations and ADL closes) and the insurance fund's movements (#14). */
export class Liquidations1764300000000 implements MigrationInterface {
  name = 'Liquidations1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE force_orders (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        order_id text NOT NULL,
        symbol text NOT NULL,
        auto_close_type text NOT NULL,
        side text NOT NULL,
        price numeric NOT NULL,
        avg_price numeric NOT NULL,
        orig_qty numeric NOT NULL,
        executed_qty numeric NOT NULL,
        fee numeric NOT NULL,
        time bigint NOT NULL,
        update_time bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX force_orders_user_time_idx ON force_orders (user_id, time, id)`);
    await q.query(
      `CREATE INDEX force_orders_user_type_time_idx ON force_orders (user_id, auto_close_type, time, id)`,
    );
    await q.query(
      `CREATE INDEX force_orders_symbol_type_time_idx ON force_orders (symbol, auto_close_type, time, id)`,
    );
    await q.query(`
      CREATE TABLE insurance_fund_movements (
        id uuid PRIMARY KEY,
        partition integer NOT NULL,
        symbol text NOT NULL,
        kind text NOT NULL,
        amount numeric NOT NULL,
        balance numeric NOT NULL,
        ref text NOT NULL,
        time bigint NOT NULL,
        source_offset bigint NOT NULL,
        source_index integer NOT NULL
      )`);
    await q.query(`CREATE INDEX insurance_fund_movements_time_idx ON insurance_fund_movements (time, id)`);
    await q.query(
      `CREATE INDEX insurance_fund_movements_place_idx ON insurance_fund_movements (partition, source_offset, source_index)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE insurance_fund_movements`);
    await q.query(`DROP TABLE force_orders`);
  }
}
