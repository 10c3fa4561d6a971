import 'reflect-metadata';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadAppConfig, Readiness } from '@perp/runtime';
import { failOnOpenKafkaClients, type KafkaMock, startKafkaMock } from '@perp/testing';
import { Bus } from './bus';
import { BusModule } from './bus.module';
import { KafkaBus } from './kafka/kafka-bus';
import { silentLogger } from './logger';
import { MemoryBus } from './memory/memory-bus';

failOnOpenKafkaClients();

@Global()
@Module({ providers: [Readiness], exports: [Readiness] })
class ProbesModule {}

async function start(env: Record<string, string>) {
  const config = loadAppConfig(env);
  @Module({
    imports: [ProbesModule, BusModule.forRoot(config, { topics: { orders: 4 }, logger: silentLogger })],
  })
  class Root {}
  const app = await NestFactory.createApplicationContext(Root, { logger: false });
  return { app, bus: app.get(Bus), readiness: app.get(Readiness) };
}

describe('BusModule', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'bus-module-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('provides a journaled memory bus by default, reports it ready and closes it on shutdown', async () => {
    const { app, bus, readiness } = await start({ DATA_DIR: dataDir });
    expect(bus).toBeInstanceOf(MemoryBus);
    expect(await readiness.report()).toEqual({ ready: true, checks: { bus: true } });
    await bus.publish('orders', 'user-1', { n: 1 });
    expect(existsSync(join(dataDir, 'bus', 'bus.journal'))).toBe(true);
    expect(existsSync(join(dataDir, 'bus', 'bus.lock'))).toBe(true);

    await app.close();
    expect(bus.isConnected()).toBe(false);
    expect(await readiness.report()).toEqual({ ready: false, checks: { bus: false } });
    expect(existsSync(join(dataDir, 'bus', 'bus.lock'))).toBe(false);

    const again = await start({ DATA_DIR: dataDir });
    expect((await again.bus.endOffsets('orders')).map((e) => e.offset).sort()).toEqual(['0', '0', '0', '1']);
    await again.app.close();
  });

  it('journals in segments of BUS_MEMORY_SEGMENT_BYTES', async () => {
    const { app, bus } = await start({ DATA_DIR: dataDir, BUS_MEMORY_SEGMENT_BYTES: '1000' });
    for (let n = 0; n < 40; n++) await bus.publish('orders', 'user-1', { n, pad: 'x'.repeat(50) });
    await app.close();
    const files = readdirSync(join(dataDir, 'bus')).filter((f) => f.startsWith('bus.journal'));
    expect(files.length).toBeGreaterThan(2);
    const again = await start({ DATA_DIR: dataDir });
    expect((await again.bus.endOffsets('orders')).map((e) => e.offset).sort()).toEqual(['0', '0', '0', '40']);
    await again.app.close();
  });

  describe('with BUS=kafka', () => {
    let mock: KafkaMock;
    beforeAll(async () => (mock = await startKafkaMock()));
    afterAll(() => mock.stop());

    it('provides the Kafka adapter on KAFKA_BROKERS', async () => {
      const { app, bus, readiness } = await start({
        BUS: 'kafka',
        KAFKA_BROKERS: mock.brokers.join(','),
        KAFKA_CLIENT_ID: 'bus-module-test',
        DATA_DIR: dataDir,
      });
      expect(bus).toBeInstanceOf(KafkaBus);
      expect(await readiness.report()).toEqual({ ready: true, checks: { bus: true } });
      const r = await bus.publish('orders', 'user-1', { n: 1 });
      expect(r.partition).toBe(bus.partitionFor('orders', 'user-1'));
      await app.close();
      expect(await readiness.report()).toEqual({ ready: false, checks: { bus: false } });
      expect(existsSync(join(dataDir, 'bus'))).toBe(false);
    });
  });
});
