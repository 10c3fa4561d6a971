import { loadAppConfig, loadShardSnapshotEnv } from './app-config';

describe('loadAppConfig', () => {
  it('applies defaults: embedded mode on port 8080, devnet chain', () => {
    const c = loadAppConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.BUS).toBe('memory');
    expect(c.CHAIN).toBe('devnet');
    expect(c.deployDir.endsWith('deploy')).toBe(true);
  });

  it('lists every bad variable in one error', () => {
    expect(() => loadAppConfig({ PORT: 'eighty', BUS: 'rabbit', REDIS_URL: 'http://x' })).toThrow(
      /PORT[\s\S]*BUS[\s\S]*REDIS_URL/,
    );
  });

  it('requires brokers for the kafka bus', () => {
    expect(() => loadAppConfig({ BUS: 'kafka' })).toThrow('KAFKA_BROKERS: required when BUS=kafka');
    expect(loadAppConfig({ BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:9092' }).BUS).toBe('kafka');
  });

  it("rate-limit ceilings default to Binance USD-M's and must be positive integers", () => {
    const c = loadAppConfig({});
    expect([
      c.RATE_LIMIT_WEIGHT_PER_MIN,
      c.RATE_LIMIT_ORDERS_PER_10S,
      c.RATE_LIMIT_ORDERS_PER_MIN,
      c.RATE_LIMIT_LOGIN_PER_MIN,
    ]).toEqual([2400, 300, 1200, 60]);
    expect(loadAppConfig({ RATE_LIMIT_ORDERS_PER_MIN: '5' }).RATE_LIMIT_ORDERS_PER_MIN).toBe(5);
    expect(() => loadAppConfig({ RATE_LIMIT_WEIGHT_PER_MIN: '-1', RATE_LIMIT_LOGIN_PER_MIN: 'x' })).toThrow(
      /RATE_LIMIT_WEIGHT_PER_MIN[\s\S]*RATE_LIMIT_LOGIN_PER_MIN/,
    );
  });

  it('price source defaults to admin pushes; the simulated feed takes an interval and a seed', () => {
    const c = loadAppConfig({});
    expect([c.PRICE_SOURCE, c.PRICE_FEED_INTERVAL_MS, c.PRICE_FEED_SEED]).toEqual(['admin', 1000, 1]);
    const s = loadAppConfig({
      PRICE_SOURCE: 'simulated',
      PRICE_FEED_INTERVAL_MS: '250',
      PRICE_FEED_SEED: '7',
    });
    expect([s.PRICE_SOURCE, s.PRICE_FEED_INTERVAL_MS, s.PRICE_FEED_SEED]).toEqual(['simulated', 250, 7]);
    expect(() =>
      loadAppConfig({ PRICE_SOURCE: 'oracle', PRICE_FEED_INTERVAL_MS: '0', PRICE_FEED_SEED: '-1' }),
    ).toThrow(/PRICE_SOURCE[\s\S]*PRICE_FEED_INTERVAL_MS[\s\S]*PRICE_FEED_SEED/);
  });

  it('the composite index source takes an optional http(s) chain RPC endpoint', () => {
    const c = loadAppConfig({ PRICE_SOURCE: 'composite', CHAIN_RPC_URL: 'https://rpc.example/key' });
    expect([c.PRICE_SOURCE, c.CHAIN_RPC_URL]).toEqual(['composite', 'https://rpc.example/key']);
    expect(loadAppConfig({}).CHAIN_RPC_URL).toBeUndefined();
    expect(() => loadAppConfig({ CHAIN_RPC_URL: 'wss://rpc.example' })).toThrow('CHAIN_RPC_URL');
  });

  it('WebSocket connections live 24 h unless configured (at least 1 s)', () => {
    expect(loadAppConfig({}).WS_CONNECTION_LIFETIME_MS).toBe(86_400_000);
    expect(loadAppConfig({ WS_CONNECTION_LIFETIME_MS: '1500' }).WS_CONNECTION_LIFETIME_MS).toBe(1500);
    expect(() => loadAppConfig({ WS_CONNECTION_LIFETIME_MS: '999' })).toThrow(/WS_CONNECTION_LIFETIME_MS/);
  });

  it('rejects a short admin token', () => {
    expect(() => loadAppConfig({ ADMIN_TOKEN: 'short' })).toThrow('ADMIN_TOKEN');
  });

  it('carries the gateway auth secrets through as optional strings', () => {
    const c = loadAppConfig({
      JWT_SECRET: 'j'.repeat(40),
      API_KEY_MASTER_KEY: 'a'.repeat(64),
      JWT_TTL_SECONDS: '600',
    });
    expect([c.JWT_SECRET, c.API_KEY_MASTER_KEY, c.JWT_TTL_SECONDS]).toEqual([
      'j'.repeat(40),
      'a'.repeat(64),
      '600',
    ]);
    const d = loadAppConfig({});
    expect([d.JWT_SECRET, d.API_KEY_MASTER_KEY, d.API_KEY_MASTER_KEY_PREVIOUS]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  describe('shard snapshot policies (RISK_, ENGINE_)', () => {
    const names = ['SNAPSHOT_EVERY', 'SNAPSHOT_INTERVAL_MS', 'SNAPSHOT_MIN_INTERVAL_MS', 'REPLAY_REPUBLISH'];

    it("are optional: unset leaves ShardPartitions' defaults", () => {
      const c = loadAppConfig({});
      for (const prefix of ['RISK', 'ENGINE'])
        for (const name of names) expect(c[`${prefix}_${name}` as keyof typeof c]).toBeUndefined();
    });

    it('accepts whole numbers within bounds and 0 or 1 for republishing', () => {
      const c = loadAppConfig({
        RISK_SNAPSHOT_EVERY: '1',
        RISK_SNAPSHOT_INTERVAL_MS: '100',
        RISK_SNAPSHOT_MIN_INTERVAL_MS: '0',
        RISK_REPLAY_REPUBLISH: '1',
        ENGINE_SNAPSHOT_EVERY: '2200000',
        ENGINE_SNAPSHOT_INTERVAL_MS: '3600000',
        ENGINE_SNAPSHOT_MIN_INTERVAL_MS: '250',
        ENGINE_REPLAY_REPUBLISH: '0',
      });
      expect([
        c.RISK_SNAPSHOT_EVERY,
        c.RISK_SNAPSHOT_INTERVAL_MS,
        c.RISK_SNAPSHOT_MIN_INTERVAL_MS,
        c.RISK_REPLAY_REPUBLISH,
        c.ENGINE_SNAPSHOT_EVERY,
        c.ENGINE_SNAPSHOT_INTERVAL_MS,
        c.ENGINE_SNAPSHOT_MIN_INTERVAL_MS,
        c.ENGINE_REPLAY_REPUBLISH,
      ]).toEqual([1, 100, 0, '1', 2_200_000, 3_600_000, 250, '0']);
    });

    it('rejects a bad value, naming each variable', () => {
      expect(() =>
        loadAppConfig({
          RISK_SNAPSHOT_EVERY: '0',
          RISK_SNAPSHOT_INTERVAL_MS: '50',
          RISK_SNAPSHOT_MIN_INTERVAL_MS: '-1',
          RISK_REPLAY_REPUBLISH: 'true',
          ENGINE_SNAPSHOT_EVERY: '1.5',
          ENGINE_SNAPSHOT_INTERVAL_MS: 'soon',
          ENGINE_SNAPSHOT_MIN_INTERVAL_MS: '',
          ENGINE_REPLAY_REPUBLISH: 'yes',
        }),
      ).toThrow(
        new RegExp(['RISK', 'ENGINE'].flatMap((p) => names.map((n) => `  ${p}_${n}: `)).join('[\\s\\S]*')),
      );
      for (const bad of [' ', '1e3', '0x10', '86400001'])
        expect(() => loadAppConfig({ ENGINE_SNAPSHOT_MIN_INTERVAL_MS: bad })).toThrow(
          'ENGINE_SNAPSHOT_MIN_INTERVAL_MS: ',
        );
    });

    it("loadShardSnapshotEnv reads one prefix's with the same rules and error", () => {
      expect(loadShardSnapshotEnv('RISK', { RISK_SNAPSHOT_EVERY: '5', ENGINE_SNAPSHOT_EVERY: 'x' })).toEqual({
        SNAPSHOT_EVERY: 5,
      });
      expect(() => loadShardSnapshotEnv('ENGINE', { ENGINE_SNAPSHOT_EVERY: '0' })).toThrow(
        /^invalid configuration:\n {2}ENGINE_SNAPSHOT_EVERY: /,
      );
    });
  });
});
