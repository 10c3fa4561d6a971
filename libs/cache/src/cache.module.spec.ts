import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadAppConfig, Readiness, RuntimeModule } from '@perp/runtime';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Redis from 'ioredis';
import { CacheModule, HOT_STORE } from './cache.module';
import type { HotStore } from './hot-store';
import { MemoryHotStore } from './memory-hot-store';
import { RedisHotStore } from './redis-hot-store';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
const DEPLOY_DIR = join(__dirname, '..', '..', '..', 'deploy');

async function start(env: Record<string, string>, prefix?: string) {
  const config = loadAppConfig({ DEPLOY_DIR, ...env });
  @Module({ imports: [RuntimeModule.forRoot(config), CacheModule.forRoot(config, { prefix })] })
  class AppModule {}
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
  return { app, store: app.get<HotStore>(HOT_STORE), readiness: app.get(Readiness) };
}

describe('CacheModule', () => {
  it('uses memory when REDIS_URL is unset; ready until shut down', async () => {
    const { app, store, readiness } = await start({});
    expect(store).toBeInstanceOf(MemoryHotStore);
    await store.set('k', 'v');
    expect(await store.get('k')).toBe('v');
    expect(await readiness.report()).toEqual({ ready: true, checks: { cache: true } });
    await app.close();
    expect(await readiness.report()).toEqual({ ready: false, checks: { cache: false } });
  });

  it('uses Redis at REDIS_URL, under a per-chain prefix by default', async () => {
    const admin = new Redis(REDIS_URL);
    const marker = `k-${randomBytes(6).toString('hex')}`;
    const { app, store, readiness } = await start({ REDIS_URL, CHAIN: 'devnet' });
    try {
      expect(store).toBeInstanceOf(RedisHotStore);
      await store.set(marker, 'v', { ttlMs: 60_000 });
      expect(await admin.get(`perp:devnet:${marker}`)).toBe('v');
      expect(await readiness.report()).toEqual({ ready: true, checks: { cache: true } });
    } finally {
      await admin.del(`perp:devnet:${marker}`);
      await admin.quit();
      await app.close();
    }
    expect(await readiness.report()).toEqual({ ready: false, checks: { cache: false } });
  });

  it('fails the start when Redis cannot be reached', async () => {
    await expect(start({ REDIS_URL: 'redis://127.0.0.1:1/0' })).rejects.toThrow(/cannot connect to Redis/);
  });
});
