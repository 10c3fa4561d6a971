import { loadAppConfig } from './app-config';

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
});
