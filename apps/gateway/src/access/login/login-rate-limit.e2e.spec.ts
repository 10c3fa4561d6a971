import { createTestSchema, type TestSchema } from '@perp/persistence';
import { Wallet } from 'ethers';
import { type AccessApp, http, type HttpResponse, nativeError, startAccessApp } from '../access.harness';

describe('native login rate limit per client IP', () => {
  let schema: TestSchema;
  let a: AccessApp;

  beforeAll(async () => {
    schema = await createTestSchema();
    // 127.0.0.1 is the trusted proxy; RATE_LIMIT_LOGIN_PER_MIN counts nonce and login together.
    a = await startAccessApp({
      schema: schema.schema,
      env: { TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_LOGIN_PER_MIN: '3' },
    });
  });

  afterAll(async () => {
    await a?.close();
    await schema?.drop();
  });

  const nonce = (address: string, ip: string, localAddress?: string) =>
    http(`${a.url}/api/v1/auth/nonce/${address}`, { headers: { 'x-forwarded-for': ip }, localAddress });
  const loginAs = (body: unknown, ip: string) =>
    http(`${a.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify(body),
    });
  const expectRateLimited = (r: HttpResponse) => {
    expect([r.status, r.body]).toEqual([429, nativeError('RATE_LIMITED')]);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
  };

  async function signedLogin(wallet: ReturnType<typeof Wallet.createRandom>, ip: string) {
    const address = wallet.address.toLowerCase();
    const t = (await nonce(address, ip)).body.typed_data;
    return {
      address,
      signature: await wallet.signTypedData(t.domain, t.types, t.message),
      timestamp: t.message.timestamp,
    };
  }

  it('counts nonce and login requests together; past the ceiling 429 RATE_LIMITED with Retry-After', async () => {
    const ip = '10.7.0.1';
    const wallet = Wallet.createRandom();
    const body = await signedLogin(wallet, ip); // 1
    const bad = await loginAs({ ...body, signature: '0x' + '11'.repeat(65) }, ip); // 2: failures count
    expect(bad.status).toBe(401);
    expect((await nonce(Wallet.createRandom().address.toLowerCase(), ip)).status).toBe(200); // 3

    expectRateLimited(await nonce(wallet.address.toLowerCase(), ip));
    // The refused login changed nothing: its nonce is still pending and logs in from elsewhere.
    expectRateLimited(await loginAs(body, ip));
    const elsewhere = await loginAs(body, '10.7.0.2');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.token).toEqual(expect.any(String));
  });

  it('keeps clients behind the proxy apart, and a direct client cannot choose its address', async () => {
    const address = Wallet.createRandom().address.toLowerCase();
    for (let i = 0; i < 3; i++) expect((await nonce(address, '10.7.1.1')).status).toBe(200);
    expectRateLimited(await nonce(address, '10.7.1.1'));
    expect((await nonce(address, '10.7.1.2')).status).toBe(200);

    // Direct from 127.0.0.4 (not a proxy): counted as 127.0.0.4, whatever X-Forwarded-For says.
    for (let i = 0; i < 3; i++) expect((await nonce(address, `10.7.2.${i}`, '127.0.0.4')).status).toBe(200);
    expectRateLimited(await nonce(address, '10.7.2.9', '127.0.0.4'));
    expect((await nonce(address, '10.7.2.0')).status).toBe(200);
  });
});
