import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A shard's snapshot may be stored gzipped (`state_encoding` 'gzip'): a risk partition's state is
 * mostly JSON of its recently closed orders, about 580 KB under load, written up to once a second,
 * and compressed ten times smaller at little cost. Rows written before it are as they were.
 */
export class SnapshotEncoding1764700000000 implements MigrationInterface {
  name = 'SnapshotEncoding1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE engine_snapshots ADD COLUMN state_encoding text NOT NULL DEFAULT 'identity'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE engine_snapshots DROP COLUMN state_encoding`);
  }
}
