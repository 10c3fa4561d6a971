import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tables the exchange needs first. Projection tables (orders, trades, income) have no foreign
 * keys: they are rebuilt from the log, where the log is the authority, and must accept events in any
 * order. Times of projected events are bigint milliseconds (event time, deterministic on replay).
 * History indexes end in `id`, the tie-break of equal times, so a page is read in index order.
 */
export class InitialSchema1763712000000 implements MigrationInterface {
  name = 'InitialSchema1763712000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        address text NOT NULL CONSTRAINT users_address_key UNIQUE,
        vip_tier integer NOT NULL DEFAULT 0,
        margin_mode text NOT NULL DEFAULT 'unified',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_address_lower CHECK (address = lower(address)),
        CONSTRAINT users_vip_tier_check CHECK (vip_tier >= 0),
        CONSTRAINT users_margin_mode_check CHECK (margin_mode IN ('unified', 'isolated'))
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT api_keys_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        api_key text NOT NULL CONSTRAINT api_keys_api_key_key UNIQUE,
        secret_ciphertext text NOT NULL,
        label text NOT NULL DEFAULT '',
        ip_whitelist text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        CONSTRAINT api_keys_status_check CHECK (status IN ('active', 'disabled'))
      )`);
    await q.query(`CREATE INDEX api_keys_user_id_idx ON api_keys (user_id)`);
    await q.query(`
      CREATE TABLE engine_snapshots (
        topic text NOT NULL,
        "partition" integer NOT NULL,
        "offset" bigint NOT NULL,
        version integer NOT NULL DEFAULT 1,
        state bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (topic, "partition", "offset")
      )`);
    await q.query(`
      CREATE TABLE processed_offsets (
        consumer text NOT NULL,
        topic text NOT NULL,
        "partition" integer NOT NULL,
        "offset" bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, topic, "partition")
      )`);
    await q.query(`
      CREATE TABLE admin_audit (
        id uuid PRIMARY KEY,
        actor text NOT NULL,
        action text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX admin_audit_created_at_idx ON admin_audit (created_at)`);
    await q.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        symbol text NOT NULL,
        client_order_id text NOT NULL,
        side text NOT NULL,
        type text NOT NULL,
        orig_type text NOT NULL,
        time_in_force text NOT NULL,
        price numeric NOT NULL DEFAULT 0,
        orig_qty numeric NOT NULL,
        executed_qty numeric NOT NULL DEFAULT 0,
        cum_quote numeric NOT NULL DEFAULT 0,
        avg_price numeric NOT NULL DEFAULT 0,
        status text NOT NULL,
        reduce_only boolean NOT NULL DEFAULT false,
        price_protect boolean NOT NULL DEFAULT false,
        stop_price numeric NOT NULL DEFAULT 0,
        working_type text NOT NULL DEFAULT 'CONTRACT_PRICE',
        position_side text NOT NULL DEFAULT 'BOTH',
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX orders_user_symbol_updated_idx ON orders (user_id, symbol, updated_at, id)`);
    await q.query(`CREATE INDEX orders_user_symbol_client_idx ON orders (user_id, symbol, client_order_id)`);
    await q.query(`
      CREATE TABLE trades (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL,
        user_id uuid NOT NULL,
        symbol text NOT NULL,
        side text NOT NULL,
        price numeric NOT NULL,
        qty numeric NOT NULL,
        quote_qty numeric NOT NULL,
        commission numeric NOT NULL,
        commission_asset text NOT NULL DEFAULT 'USDT',
        realized_pnl numeric NOT NULL DEFAULT 0,
        maker boolean NOT NULL,
        time bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX trades_user_time_idx ON trades (user_id, time, id)`);
    await q.query(`CREATE INDEX trades_user_symbol_time_idx ON trades (user_id, symbol, time, id)`);
    await q.query(`CREATE INDEX trades_order_id_idx ON trades (order_id)`);
    await q.query(`
      CREATE TABLE income (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        symbol text NOT NULL DEFAULT '',
        income_type text NOT NULL,
        income numeric NOT NULL,
        asset text NOT NULL DEFAULT 'USDT',
        info text NOT NULL DEFAULT '',
        trade_id text NOT NULL DEFAULT '',
        time bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX income_user_time_idx ON income (user_id, time, id)`);
    await q.query(`CREATE INDEX income_user_type_time_idx ON income (user_id, income_type, time, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'income',
      'trades',
      'orders',
      'admin_audit',
      'processed_offsets',
      'engine_snapshots',
      'api_keys',
      'users',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
