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
});
