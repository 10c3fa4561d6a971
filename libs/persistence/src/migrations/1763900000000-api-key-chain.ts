import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keys are per chain deployment (a key used on another gives INVALID_API_KEY), also when two
 * deployments share a database. Keys made before this have no chain; the first deployment to
 * start afterwards claims them (ApiKeyRepository.claimUnowned).
 */
export class ApiKeyChain1763900000000 implements MigrationInterface {
  name = 'ApiKeyChain1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN chain text`);
    await q.query(`CREATE INDEX api_keys_user_chain_idx ON api_keys (user_id, chain)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX api_keys_user_chain_idx`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN chain`);
  }
}
