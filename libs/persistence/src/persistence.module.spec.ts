import { MIGRATIONS } from './migrations';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadAppConfig, Readiness, RuntimeModule } from '@perp/runtime';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { PERSISTENCE_DATA_SOURCE, PersistenceModule } from './persistence.module';
import { IncomeRepository, UserRepository } from './repositories';
import { createTestSchema, type TestSchema } from './testing/test-schema';

describe('PersistenceModule (real Postgres)', () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  it('connects, migrates, provides the DataSource and repositories, reports ready, closes on shutdown', async () => {
    const config = loadAppConfig({
      DEPLOY_DIR: join(__dirname, '..', '..', '..', 'deploy'),
      DATABASE_URL: db.url,
      LOG_LEVEL: 'error',
    });
    @Module({
      imports: [RuntimeModule.forRoot(config), PersistenceModule.forRoot(config, { schema: db.schema })],
    })
    class AppModule {}

    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    const ds = app.get<DataSource>(PERSISTENCE_DATA_SOURCE);
    const readiness = app.get(Readiness);
    try {
      expect(ds.isInitialized).toBe(true);
      const [{ count }] = await ds.query(`SELECT count(*)::int AS count FROM typeorm_migrations`);
      expect(count).toBe(MIGRATIONS.length);
      const { user } = await app
        .get(UserRepository)
        .findOrCreate('0x00000000000000000000000000000000000000aa');
      expect(await app.get(IncomeRepository).listByUser(user.id)).toEqual([]);
      expect(await readiness.report()).toEqual({ ready: true, checks: { postgres: true } });
    } finally {
      await app.close();
    }
    expect(ds.isInitialized).toBe(false);
    expect(await readiness.report()).toEqual({ ready: false, checks: { postgres: false } });
  });

  it('fails the start with the database error when the server is unreachable', async () => {
    const config = loadAppConfig({
      DEPLOY_DIR: join(__dirname, '..', '..', '..', 'deploy'),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
    });
    @Module({
      imports: [
        RuntimeModule.forRoot(config),
        PersistenceModule.forRoot(config, { connectTimeoutMs: 2_000 }),
      ],
    })
    class AppModule {}
    await expect(
      NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
