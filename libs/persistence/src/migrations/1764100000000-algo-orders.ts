import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Algo order history (POST /fapi/v1/algoOrder and the native conditional orders). */
export class AlgoOrders1764100000000 implements MigrationInterface {
  name = 'AlgoOrders1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE algo_orders (
        algo_id bigint PRIMARY KEY,
        user_id uuid NOT NULL,
        symbol text NOT NULL,
        client_algo_id text NOT NULL,
        status text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        record text NOT NULL
      )`);
    await q.query(
      `CREATE INDEX algo_orders_user_symbol_created_idx ON algo_orders (user_id, symbol, created_at, algo_id)`,
    );
    await q.query(`CREATE INDEX algo_orders_user_client_idx ON algo_orders (user_id, client_algo_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE algo_orders`);
  }
}
