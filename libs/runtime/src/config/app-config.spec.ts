import { envSchema, loadAppConfig, loadShardSnapshotEnv } from './app-config';

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

  describe('whole numbers and empty values (one rule for every variable)', () => {
    // [name, min, max (none: the largest safe integer), default when unset]
    const integers: [string, number, number | undefined, number | undefined][] = [
      ['PORT', 0, 65535, 8080],
      ['KAFKA_SESSION_TIMEOUT_MS', 500, 300_000, 6000],
      ['KAFKA_HEARTBEAT_INTERVAL_MS', 50, 60_000, 500],
      ['KAFKA_REBALANCE_TIMEOUT_MS', 500, 300_000, 6000],
      ['KAFKA_LEADER_SYNC_DELAY_MS', 0, 5000, 0],
      ['KAFKA_MEMBER_WATCH_MS', 0, 60_000, 250],
      ['KAFKA_FETCH_MAX_WAIT_MS', 0, 10_000, 100],
      ['KAFKA_COMMIT_INTERVAL_MS', 0, 60_000, 100],
      ['RATE_LIMIT_WEIGHT_PER_MIN', 1, undefined, 2400],
      ['RATE_LIMIT_ORDERS_PER_10S', 1, undefined, 300],
      ['RATE_LIMIT_ORDERS_PER_MIN', 1, undefined, 1200],
      ['RATE_LIMIT_LOGIN_PER_MIN', 1, undefined, 60],
      ['UPSTREAM_TIMEOUT_MS', 100, 120_000, 10_000],
      ['WS_CONNECTION_LIFETIME_MS', 1000, 604_800_000, 86_400_000],
      ['BUS_MEMORY_RETAIN', 1, 10_000_000, 5000],
      ['BUS_MEMORY_BACKGROUND_MS', 0, 10_000, 10],
      ['BUS_MEMORY_RETENTION_HOURS', 2, 87_600, 168],
      ['BUS_MEMORY_SEGMENT_BYTES', 1000, 4_294_967_296, 134_217_728],
      ['HISTORY_BATCH_MS', 0, 10_000, 50],
      ['MARKET_DATA_BATCH_MS', 0, 10_000, 20],
      ['PRICE_FEED_INTERVAL_MS', 10, 3_600_000, 1000],
      ['PRICE_FEED_SEED', 0, 0xffffffff, 1],
      ['KEEPER_TICK_MS', 10, 60_000, 1000],
      ['KEEPER_CLOCK_SKEW_MS', 0, 86_400_000, 0],
      ...['RISK', 'ENGINE'].flatMap((p): [string, number, number, undefined][] => [
        [`${p}_SNAPSHOT_EVERY`, 1, 100_000_000, undefined],
        [`${p}_SNAPSHOT_INTERVAL_MS`, 100, 86_400_000, undefined],
        [`${p}_SNAPSHOT_MIN_INTERVAL_MS`, 0, 86_400_000, undefined],
      ]),
    ];
    const value = (c: object, name: string) => (c as Record<string, unknown>)[name];
    // The heartbeat must stay below the session timeout whichever of the two is at a bound.
    const base = { KAFKA_SESSION_TIMEOUT_MS: '300000', KAFKA_HEARTBEAT_INTERVAL_MS: '50' };
    const only = (name: string, v: string) => loadAppConfig({ ...base, [name]: v });

    it('covers every variable that parses to a number', () => {
      const numeric = Object.entries(envSchema.shape)
        .filter(([, schema]) =>
          ['1', '100', '1000'].some((v) => typeof schema.safeParse(v).data === 'number'),
        )
        .map(([name]) => name);
      expect(numeric.sort()).toEqual(integers.map(([name]) => name).sort());
    });

    it('unset takes the default', () => {
      const c = loadAppConfig({});
      for (const [name, , , dflt] of integers) expect([name, value(c, name)]).toEqual([name, dflt]);
    });

    it('accepts plain digits within the same bounds as before', () => {
      for (const [name, min, max] of integers) {
        const top = max ?? Number.MAX_SAFE_INTEGER;
        expect([name, value(only(name, String(min)), name)]).toEqual([name, min]);
        expect([name, value(only(name, String(top)), name)]).toEqual([name, top]);
        expect([name, value(only(name, `00${min + 1}`), name)]).toEqual([name, min + 1]);
        expect(() => only(name, String(BigInt(top) + 1n))).toThrow(`\n  ${name}: `);
        if (min > 0) expect(() => only(name, String(min - 1))).toThrow(`\n  ${name}: `);
      }
    });

    it("rejects empty, blank, signed, decimal, exponent, hex and padded values as 'a whole number'", () => {
      for (const [name] of integers)
        for (const bad of ['', ' ', '1e3', '0x10', '-1', '+1', '1.5', '1_000', '  42  ', '42\n'])
          expect(() => only(name, bad)).toThrow(`\n  ${name}: a whole number (digits only)`);
    });

    it('lists each bad number in the one error', () => {
      expect(() =>
        loadAppConfig({ PORT: '', KAFKA_LEADER_SYNC_DELAY_MS: '', BUS_MEMORY_BACKGROUND_MS: '1e3' }),
      ).toThrow(
        /^invalid configuration:\n {2}PORT: a whole number \(digits only\)\n {2}KAFKA_LEADER_SYNC_DELAY_MS: [^\n]+\n {2}BUS_MEMORY_BACKGROUND_MS: [^\n]+$/,
      );
    });

    it('no variable, text, URL or enum, takes an empty or blank value for unset', () => {
      for (const name of Object.keys(envSchema.shape))
        for (const empty of ['', ' ', '\t'])
          expect(() => loadAppConfig({ [name]: empty })).toThrow(
            new RegExp(`^invalid configuration:\\n {2}${name}: [^\\n]+$`),
          );
      expect(() => loadAppConfig({ HOST: '' })).toThrow('HOST: empty: give a value or leave it unset');
      expect(() => loadAppConfig({ ADMIN_TOKEN: '' })).toThrow(
        /ADMIN_TOKEN: empty: give a value or leave it unset$/,
      );
      // One line: empty brokers are not also reported missing.
      expect(() => loadAppConfig({ BUS: 'kafka', KAFKA_BROKERS: '' })).toThrow(
        /^invalid configuration:\n {2}KAFKA_BROKERS: empty: give a value or leave it unset$/,
      );
      // Text is taken as written, not trimmed.
      expect(loadAppConfig({ TRUSTED_PROXIES: '10.0.0.1', DATA_DIR: ' x' })).toMatchObject({
        TRUSTED_PROXIES: '10.0.0.1',
        DATA_DIR: ' x',
      });
    });
  });
});
