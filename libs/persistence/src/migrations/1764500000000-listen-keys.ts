import type { MigrationInterface, QueryRunner } from 'typeorm';

/** User data stream listen keys and their resume places, durable across gateway restarts. */
export class ListenKeys1764500000000 implements MigrationInterface {
  name = 'ListenKeys1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE listen_keys (
        listen_key text NOT NULL,
        address text NOT NULL,
        expires_at bigint NOT NULL,
        cursor text,
        CONSTRAINT listen_keys_pkey PRIMARY KEY (listen_key)
      )`);
    await q.query(`CREATE INDEX listen_keys_address_idx ON listen_keys (address, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE listen_keys`);
  }
}
