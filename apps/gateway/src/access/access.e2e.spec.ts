import { createHmac } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { buildLoginTypedData } from '@perp/auth';
import { userIdForAddress } from '@perp/contracts';
import { ApiKeyRepository, createTestSchema, type TestSchema, UserRepository } from '@perp/persistence';
import { type HDNodeWallet, Wallet } from 'ethers';
import {
  type AccessApp,
  authError,
  createKey,
  http,
  json,
  login,
  nativeError,
  signed,
  startAccessApp,
  TEST_JWT_SECRET,
} from './access.harness';

const HEX64 = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('native login, API keys and signed FAPI requests over HTTP', () => {
  let schema: TestSchema;
  let a: AccessApp;
  let url: string;
  // Everything the app writes (JSON log lines), to prove no secret is ever logged.
  const output: string[] = [];
  const secrets: string[] = [];
  const spies: jest.SpyInstance[] = [];

  const capture = (stream: NodeJS.WriteStream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });

  async function newKey(token: string, body: unknown = {}) {
    const key = await createKey(url, token, body);
    secrets.push(key.secret_key);
    return key;
  }

  beforeAll(async () => {
    spies.push(capture(process.stdout), capture(process.stderr));
    schema = await createTestSchema();
    // 127.0.0.1 plays the reverse proxy; clients connecting from 127.0.0.2 are direct.
    a = await startAccessApp({
      schema: schema.schema,
      env: { TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: 'verbose' },
      access: { lastUsedFlushMs: 100 },
    });
    url = a.url;
  });

  afterAll(async () => {
    await a?.close();
    await schema?.drop();
    for (const s of spies) s.mockRestore();
  });

  describe('wallet login', () => {
    it('issues EIP-712 typed data for the deployment and a JWT for a real wallet signature', async () => {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      const before = Date.now();
      const nonce = await http(`${url}/api/v1/auth/nonce/${address}`);
      expect(nonce.status).toBe(200);
      const t = nonce.body.typed_data;
      expect(t.domain).toEqual({ name: 'Perp Exchange', version: '1', chainId: 31337 });
      expect(t.primaryType).toBe('Login');
      expect(t.message.address).toBe(wallet.address);
      expect(t.message.timestamp).toBeGreaterThanOrEqual(before);
      // Asking for a nonce proves nothing, so it creates no user.
      expect(await a.app.get(UserRepository).findByAddress(address)).toBeUndefined();

      const signature = await wallet.signTypedData(t.domain, t.types, t.message);
      const res = await json(`${url}/api/v1/auth/login`, 'POST', {
        address,
        signature,
        timestamp: t.message.timestamp,
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['token']);
      const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
      expect(claims.sub).toBe(address);
      expect((await a.app.get(UserRepository).findByAddress(address))?.id).toBe(userIdForAddress(address));
      expect((await json(`${url}/api/v1/api-keys`, 'GET', undefined, res.body.token)).body).toEqual([]);
    });

    it('INVALID_ADDRESS (400) on the nonce and the login calls', async () => {
      for (const bad of ['0x1234', 'wallet', '0x' + 'g'.repeat(40)]) {
        const res = await http(`${url}/api/v1/auth/nonce/${bad}`);
        expect([bad, res.status, res.body]).toEqual([bad, 400, nativeError('INVALID_ADDRESS')]);
      }
      const res = await json(`${url}/api/v1/auth/login`, 'POST', {
        address: 'wallet',
        signature: '0x' + '11'.repeat(65),
        timestamp: Date.now(),
      });
      expect([res.status, res.body]).toEqual([400, nativeError('INVALID_ADDRESS')]);
    });

    it('TIMESTAMP_EXPIRED (400) outside ±5 minutes', async () => {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      const t = (await http(`${url}/api/v1/auth/nonce/${address}`)).body.typed_data;
      const signature = await wallet.signTypedData(t.domain, t.types, t.message);
      for (const timestamp of [Date.now() - 6 * 60_000, Date.now() + 6 * 60_000]) {
        const res = await json(`${url}/api/v1/auth/login`, 'POST', { address, signature, timestamp });
        expect([res.status, res.body]).toEqual([400, nativeError('TIMESTAMP_EXPIRED')]);
      }
    });

    it('USER_NOT_FOUND (404) when no nonce was requested', async () => {
      const wallet = Wallet.createRandom();
      const t = buildLoginTypedData({
        chainId: 31337,
        address: wallet.address,
        nonce: 'made-up',
        timestamp: Date.now(),
      });
      const signature = await wallet.signTypedData(t.domain, t.types, t.message);
      const res = await json(`${url}/api/v1/auth/login`, 'POST', {
        address: wallet.address.toLowerCase(),
        signature,
        timestamp: t.message.timestamp,
      });
      expect([res.status, res.body]).toEqual([404, nativeError('USER_NOT_FOUND')]);
    });

    it('refuses a replayed login signature (USER_NOT_FOUND: the nonce is single use)', async () => {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      const t = (await http(`${url}/api/v1/auth/nonce/${address}`)).body.typed_data;
      const body = {
        address,
        signature: await wallet.signTypedData(t.domain, t.types, t.message),
        timestamp: t.message.timestamp,
      };
      expect((await json(`${url}/api/v1/auth/login`, 'POST', body)).status).toBe(200);
      const replay = await json(`${url}/api/v1/auth/login`, 'POST', body);
      expect([replay.status, replay.body]).toEqual([404, nativeError('USER_NOT_FOUND')]);
      // After a new nonce, the old signature is for another message.
      await http(`${url}/api/v1/auth/nonce/${address}`);
      const again = await json(`${url}/api/v1/auth/login`, 'POST', body);
      expect([again.status, again.body]).toEqual([401, nativeError('SIGNATURE_INVALID')]);
    });

    it('SIGNATURE_INVALID (401) for another address signature or tampered typed data, without burning the nonce', async () => {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      const t = (await http(`${url}/api/v1/auth/nonce/${address}`)).body.typed_data;
      const forged = [
        await Wallet.createRandom().signTypedData(t.domain, t.types, t.message),
        await wallet.signTypedData({ ...t.domain, chainId: 1 }, t.types, t.message),
        await wallet.signTypedData(t.domain, t.types, { ...t.message, nonce: 'other' }),
        await wallet.signTypedData(t.domain, t.types, { ...t.message, statement: 'Approve everything' }),
        '0x' + '00'.repeat(65),
      ];
      for (const signature of forged) {
        const res = await json(`${url}/api/v1/auth/login`, 'POST', {
          address,
          signature,
          timestamp: t.message.timestamp,
        });
        expect([res.status, res.body]).toEqual([401, nativeError('SIGNATURE_INVALID')]);
      }
      // The echoed timestamp must be the issued one.
      const genuine = await wallet.signTypedData(t.domain, t.types, t.message);
      const shifted = await json(`${url}/api/v1/auth/login`, 'POST', {
        address,
        signature: genuine,
        timestamp: t.message.timestamp + 1,
      });
      expect([shifted.status, shifted.body]).toEqual([401, nativeError('SIGNATURE_INVALID')]);
      const ok = await json(`${url}/api/v1/auth/login`, 'POST', {
        address,
        signature: genuine,
        timestamp: t.message.timestamp,
      });
      expect(ok.status).toBe(200);
    });

    it('SIGNATURE_FORMAT_INVALID (400) for a signature without 0x', async () => {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      const t = (await http(`${url}/api/v1/auth/nonce/${address}`)).body.typed_data;
      const signature = await wallet.signTypedData(t.domain, t.types, t.message);
      for (const bad of [signature.slice(2), 'not hex', 42]) {
        const res = await json(`${url}/api/v1/auth/login`, 'POST', {
          address,
          signature: bad,
          timestamp: t.message.timestamp,
        });
        expect([res.status, res.body]).toEqual([400, nativeError('SIGNATURE_FORMAT_INVALID')]);
      }
    });

    it('INVALID_REQUEST (400) for a body that is not an object, or malformed JSON', async () => {
      const arr = await json(`${url}/api/v1/auth/login`, 'POST', [1, 2]);
      expect([arr.status, arr.body]).toEqual([400, nativeError('INVALID_REQUEST')]);
      const bad = await http(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{bad',
      });
      expect([bad.status, bad.body]).toEqual([
        400,
        { error: 'Malformed JSON body.', code: 'INVALID_REQUEST' },
      ]);
    });
  });

  describe('API keys (JWT only)', () => {
    let wallet: HDNodeWallet;
    let token: string;

    beforeAll(async () => {
      wallet = Wallet.createRandom();
      token = await login(url, wallet);
    });

    it('creates a key: 64-hex key and secret, canonical whitelist, permissions, ISO dates; the secret is shown once', async () => {
      const before = Date.now();
      const res = await json(
        `${url}/api/v1/api-keys`,
        'POST',
        { label: 'bot 1', ip_whitelist: ' 10.0.0.1, 2001:DB8:0::1 ' },
        token,
      );
      expect(res.status).toBe(200);
      const k = res.body;
      secrets.push(k.secret_key);
      expect(Object.keys(k).sort()).toEqual(
        [
          'api_key',
          'created_at',
          'id',
          'ip_whitelist',
          'label',
          'permissions',
          'secret_key',
          'status',
        ].sort(),
      );
      expect(k.id).toMatch(UUID);
      expect(k.api_key).toMatch(HEX64);
      expect(k.secret_key).toMatch(HEX64);
      expect(k.secret_key).not.toBe(k.api_key);
      expect(k).toMatchObject({
        label: 'bot 1',
        ip_whitelist: '10.0.0.1,2001:db8::1',
        permissions: 'trading,deposit',
        status: 'active',
      });
      expect(k.created_at).toMatch(ISO_UTC);
      expect(Date.parse(k.created_at)).toBeGreaterThanOrEqual(before - 1000);

      // Stored encrypted, never in clear.
      const row = await a.app.get(ApiKeyRepository).findByApiKey(k.api_key, 'devnet');
      expect(row?.secretCiphertext.startsWith('v1:')).toBe(true);
      expect(row?.secretCiphertext).not.toContain(k.secret_key);

      const list = await json(`${url}/api/v1/api-keys`, 'GET', undefined, token);
      expect(list.status).toBe(200);
      const listed = list.body.find((x: { id: string }) => x.id === k.id);
      expect(listed).toEqual({
        id: k.id,
        api_key: k.api_key,
        label: 'bot 1',
        ip_whitelist: '10.0.0.1,2001:db8::1',
        permissions: 'trading,deposit',
        created_at: k.created_at,
        last_used_at: null,
        status: 'active',
      });
      expect(list.text).not.toContain(k.secret_key);
    });

    it('defaults: empty label and unrestricted whitelist; the body may be absent', async () => {
      const res = await http(`${url}/api/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      secrets.push(res.body.secret_key);
      expect(res.body).toMatchObject({ label: '', ip_whitelist: '', status: 'active' });
    });

    it('updates label, whitelist and status; other fields are kept; the secret is not shown', async () => {
      const k = await newKey(token, { label: 'before' });
      const res = await json(
        `${url}/api/v1/api-keys/${k.id}`,
        'PUT',
        { label: 'after', ip_whitelist: '::FFFF:1.2.3.4' },
        token,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: k.id,
        api_key: k.api_key,
        label: 'after',
        ip_whitelist: '1.2.3.4',
        status: 'active',
      });
      expect(res.body).not.toHaveProperty('secret_key');
      const disabled = await json(`${url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'disabled' }, token);
      expect(disabled.body).toMatchObject({ label: 'after', ip_whitelist: '1.2.3.4', status: 'disabled' });
      const cleared = await json(
        `${url}/api/v1/api-keys/${k.id}`,
        'PUT',
        { ip_whitelist: '', status: 'active' },
        token,
      );
      expect(cleared.body).toMatchObject({ ip_whitelist: '', status: 'active' });
      const same = await json(`${url}/api/v1/api-keys/${k.id}`, 'PUT', {}, token);
      expect(same.body).toMatchObject({ label: 'after', ip_whitelist: '', status: 'active' });
      expect(same.text).not.toContain(k.secret_key);
    });

    it('INVALID_REQUEST (400) for wrong types, an unknown status or a non-object body', async () => {
      const k = await newKey(token);
      const bad: [string, unknown][] = [
        ['POST', { label: 5 }],
        ['POST', { ip_whitelist: ['1.2.3.4'] }],
        ['POST', { label: 'x'.repeat(101) }],
        // Control characters (NUL once reached Postgres, which refuses it: a 500).
        ['POST', { label: 'a\u0000b' }],
        ['PUT', { label: 'a\u0000b' }],
        ['PUT', { label: 'line\nbreak' }],
        ['POST', 'label'],
        ['PUT', { status: 'paused' }],
        ['PUT', { status: 'ACTIVE' }],
        ['PUT', { status: true }],
        ['PUT', { label: null }],
        ['PUT', [1]],
      ];
      for (const [method, body] of bad) {
        const path = method === 'POST' ? '/api/v1/api-keys' : `/api/v1/api-keys/${k.id}`;
        const res = await json(`${url}${path}`, method, body, token);
        expect([method, body, res.status, res.body]).toEqual([
          method,
          body,
          400,
          nativeError('INVALID_REQUEST'),
        ]);
      }
      const list = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, token)).body;
      expect(list.find((x: { id: string }) => x.id === k.id)).toMatchObject({ label: '', status: 'active' });
    });

    it('INVALID_IP (400) for malformed IPv4 and IPv6 entries, on create and on update', async () => {
      const k = await newKey(token);
      for (const ip of [
        '1.2.3.256',
        '1.2.3',
        '10.0.0.1,',
        '2001:db8::g',
        '1::2::3',
        'fe80::1%eth0',
        'localhost',
      ]) {
        const created = await json(`${url}/api/v1/api-keys`, 'POST', { ip_whitelist: ip }, token);
        expect([ip, created.status, created.body]).toEqual([ip, 400, nativeError('INVALID_IP')]);
        const updated = await json(`${url}/api/v1/api-keys/${k.id}`, 'PUT', { ip_whitelist: ip }, token);
        expect([ip, updated.status, updated.body]).toEqual([ip, 400, nativeError('INVALID_IP')]);
      }
    });

    it('deletes with 204 and no body; a second delete is 404', async () => {
      const k = await newKey(token);
      const res = await json(`${url}/api/v1/api-keys/${k.id}`, 'DELETE', undefined, token);
      expect([res.status, res.text]).toEqual([204, '']);
      const list = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, token)).body;
      expect(list.map((x: { id: string }) => x.id)).not.toContain(k.id);
      const again = await json(`${url}/api/v1/api-keys/${k.id}`, 'DELETE', undefined, token);
      expect([again.status, again.body]).toEqual([404, nativeError('NOT_FOUND')]);
    });

    it("answers 404 NOT_FOUND for another user's key by id, and changes nothing", async () => {
      const victim = await login(url, Wallet.createRandom());
      const k = await newKey(victim, { label: 'mine' });
      for (const [method, body] of [
        ['PUT', { status: 'disabled', label: 'pwned', ip_whitelist: '6.6.6.6' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await json(`${url}/api/v1/api-keys/${k.id}`, method, body, token);
        expect([method, res.status, res.body]).toEqual([method, 404, nativeError('NOT_FOUND')]);
      }
      const theirs = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, victim)).body;
      expect(theirs).toEqual([
        expect.objectContaining({ id: k.id, label: 'mine', ip_whitelist: '', status: 'active' }),
      ]);
      expect((await signed(url, '/fapi/v1/positionSide/dual', k)).status).toBe(200);
      // Ids that are not UUIDs cannot name a key either.
      for (const id of ['nope', '1', `${k.id}x`]) {
        const res = await json(`${url}/api/v1/api-keys/${id}`, 'PUT', {}, token);
        expect([id, res.status, res.body]).toEqual([id, 404, nativeError('NOT_FOUND')]);
      }
    });

    it('INVALID_TOKEN (401): no token, expired, another secret, an API key as bearer or in X-MBX-APIKEY', async () => {
      const k = await newKey(token);
      const now = Math.floor(Date.now() / 1000);
      const sub = wallet.address.toLowerCase();
      const bearers = [
        undefined,
        new JwtService({ secret: TEST_JWT_SECRET }).sign({ sub, iat: now - 100, exp: now - 10 }),
        new JwtService({ secret: 'another-secret-of-enough-length-000000' }).sign({ sub }),
        k.api_key,
        k.secret_key,
        `${k.api_key}.${k.secret_key}.x`,
      ];
      for (const bearer of bearers) {
        for (const [method, path, body] of [
          ['POST', '/api/v1/api-keys', {}],
          ['GET', '/api/v1/api-keys', undefined],
          ['PUT', `/api/v1/api-keys/${k.id}`, { status: 'disabled' }],
          ['DELETE', `/api/v1/api-keys/${k.id}`, undefined],
        ] as const) {
          const res = await json(`${url}${path}`, method, body, bearer);
          expect([method, res.status, res.body]).toEqual([method, 401, nativeError('INVALID_TOKEN')]);
        }
      }
      const expired = await json(`${url}/api/v1/api-keys`, 'GET', undefined, bearers[1]);
      expect(expired.body).toEqual({ error: 'Token expired.', code: 'INVALID_TOKEN' });
      // The key as a FAPI key on the management endpoints: still no JWT.
      const viaHeader = await http(`${url}/api/v1/api-keys`, { headers: { 'x-mbx-apikey': k.api_key } });
      expect([viaHeader.status, viaHeader.body]).toEqual([401, nativeError('INVALID_TOKEN')]);
      // Nothing above changed the key.
      const list = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, token)).body;
      expect(list.find((x: { id: string }) => x.id === k.id)).toMatchObject({ status: 'active' });
    });

    it('LIMIT_REACHED (400) on the 31st key', async () => {
      const owner = await login(url, Wallet.createRandom());
      for (let i = 0; i < 30; i++) await newKey(owner, { label: `k${i}` });
      const res = await json(`${url}/api/v1/api-keys`, 'POST', { label: 'k30' }, owner);
      expect([res.status, res.body]).toEqual([400, nativeError('LIMIT_REACHED')]);
      expect((await json(`${url}/api/v1/api-keys`, 'GET', undefined, owner)).body).toHaveLength(30);
    });
  });

  describe('signed FAPI requests', () => {
    let token: string;
    const wallet = Wallet.createRandom();

    beforeAll(async () => {
      token = await login(url, wallet);
    });

    it('a key works on signed endpoints until disabled, again when re-enabled, and never after deletion', async () => {
      const k = await newKey(token);
      const get = () => signed(url, '/fapi/v1/positionSide/dual', k);
      const post = () =>
        signed(url, '/fapi/v1/positionSide/dual', k, {
          method: 'POST',
          jsonBody: '{"dualSidePosition":false}',
        });
      expect([(await get()).status, (await get()).body]).toEqual([200, { dualSidePosition: false }]);
      expect([(await post()).status, (await post()).body]).toEqual([200, { code: 200, msg: 'success' }]);

      await json(`${url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'disabled' }, token);
      for (const res of [await get(), await post()])
        expect([res.status, res.body]).toEqual([401, authError('API_KEY_DISABLED')]);

      await json(`${url}/api/v1/api-keys/${k.id}`, 'PUT', { status: 'active' }, token);
      expect((await get()).status).toBe(200);

      expect((await json(`${url}/api/v1/api-keys/${k.id}`, 'DELETE', undefined, token)).status).toBe(204);
      for (const res of [await get(), await post()])
        expect([res.status, res.body]).toEqual([401, authError('INVALID_API_KEY')]);
    });

    it('refreshes last_used_at on each successful request, written to the database in batches', async () => {
      const k = await newKey(token);
      const before = Date.now();
      expect((await signed(url, '/fapi/v1/positionSide/dual', k)).status).toBe(200);
      const after = Date.now();
      const listed = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, token)).body.find(
        (x: { id: string }) => x.id === k.id,
      );
      expect(listed.last_used_at).toMatch(ISO_UTC);
      expect(Date.parse(listed.last_used_at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(listed.last_used_at)).toBeLessThanOrEqual(after);
      // A refused request is no use.
      await signed(url, '/fapi/v1/positionSide/dual', k, { secret: 'f'.repeat(64) });
      const repo = a.app.get(ApiKeyRepository);
      let row = await repo.findByApiKey(k.api_key, 'devnet');
      for (let i = 0; i < 100 && !row?.lastUsedAt; i++) {
        await new Promise((r) => setTimeout(r, 50));
        row = await repo.findByApiKey(k.api_key, 'devnet');
      }
      expect(row?.lastUsedAt?.toISOString()).toBe(listed.last_used_at);
    });

    it('dualSidePosition: false, "false", 0, "0" and "" succeed; true, "true", 1 give -4059; missing gives -1102', async () => {
      const k = await newKey(token);
      for (const v of ['false', '0', '', 'FALSE']) {
        const q = await signed(url, '/fapi/v1/positionSide/dual', k, {
          method: 'POST',
          params: { dualSidePosition: v },
        });
        expect([v, q.status, q.body]).toEqual([v, 200, { code: 200, msg: 'success' }]);
      }
      for (const v of [false, 'false', 0, '0', '']) {
        const j = await signed(url, '/fapi/v1/positionSide/dual', k, {
          method: 'POST',
          jsonBody: JSON.stringify({ dualSidePosition: v }),
        });
        expect([v, j.status, j.body]).toEqual([v, 200, { code: 200, msg: 'success' }]);
      }
      for (const v of [true, 'true', 1, '1']) {
        const j = await signed(url, '/fapi/v1/positionSide/dual', k, {
          method: 'POST',
          jsonBody: JSON.stringify({ dualSidePosition: v }),
        });
        expect([v, j.status, j.body]).toEqual([v, 400, { code: -4059, msg: expect.any(String) }]);
      }
      const missing = await signed(url, '/fapi/v1/positionSide/dual', k, { method: 'POST', jsonBody: '{}' });
      expect([missing.status, missing.body.code]).toEqual([400, -1102]);
      const twice = await signed(url, '/fapi/v1/positionSide/dual', k, {
        method: 'POST',
        params: { dualSidePosition: 'false' },
        jsonBody: '{"dualSidePosition":false}',
      });
      expect([twice.status, twice.body.code]).toEqual([400, -1102]);
    });

    it('marginType: CROSSED succeeds, ISOLATED -4046, unknown symbol -1121, missing -1102, other type -1130', async () => {
      const k = await newKey(token);
      const call = (body: Record<string, unknown>) =>
        signed(url, '/fapi/v1/marginType', k, { method: 'POST', jsonBody: JSON.stringify(body) });
      for (const symbol of ['BTCUSDT', 'btc-usd', 'ETH/USDT'])
        expect((await call({ symbol, marginType: 'CROSSED' })).body).toEqual({ code: 200, msg: 'success' });
      const cases: [Record<string, unknown>, number][] = [
        [{ symbol: 'BTCUSDT', marginType: 'ISOLATED' }, -4046],
        [{ symbol: 'DOGEUSDT', marginType: 'CROSSED' }, -1121],
        [{ marginType: 'CROSSED' }, -1102],
        [{ symbol: 'BTCUSDT' }, -1102],
        [{ symbol: 'BTCUSDT', marginType: 'PORTFOLIO' }, -1130],
      ];
      for (const [body, code] of cases) {
        const res = await call(body);
        expect([body, res.status, res.body]).toEqual([body, 400, { code, msg: expect.any(String) }]);
      }
    });

    it("accepts Binance's conventions: parameters in the query of a POST, or everything in a form body", async () => {
      const k = await newKey(token);
      // Query only, no body at all; and an empty JSON body, as some clients send.
      const q = await signed(url, '/fapi/v1/marginType', k, {
        method: 'POST',
        params: { symbol: 'BTCUSDT', marginType: 'CROSSED' },
      });
      expect([q.status, q.body]).toEqual([200, { code: 200, msg: 'success' }]);
      const empty = await signed(url, '/fapi/v1/marginType', k, {
        method: 'POST',
        params: { symbol: 'BTCUSDT', marginType: 'ISOLATED' },
        jsonBody: '',
      });
      expect([empty.status, empty.body.code]).toEqual([400, -4046]);
      // A form body carrying timestamp and signature.
      const form = `symbol=BTCUSDT&marginType=CROSSED&timestamp=${Date.now()}`;
      const signature = createHmac('sha256', k.secret_key).update(form).digest('hex');
      const res = await http(`${url}/fapi/v1/marginType`, {
        method: 'POST',
        headers: { 'x-mbx-apikey': k.api_key, 'content-type': 'application/x-www-form-urlencoded' },
        body: `${form}&signature=${signature}`,
      });
      expect([res.status, res.body]).toEqual([200, { code: 200, msg: 'success' }]);
    });

    it('INVALID_API_KEY (401) for a key of another chain deployment sharing the database', async () => {
      const arbitrum = await startAccessApp({ schema: schema.schema, env: { CHAIN: 'arbitrum' } });
      try {
        const devnetKey = await newKey(token);
        expect((await signed(url, '/fapi/v1/positionSide/dual', devnetKey)).status).toBe(200);
        const there = await signed(arbitrum.url, '/fapi/v1/positionSide/dual', devnetKey);
        expect([there.status, there.body]).toEqual([401, authError('INVALID_API_KEY')]);
        // And the other way round, for a key made on the other deployment.
        const arbitrumKey = await createKey(arbitrum.url, await login(arbitrum.url, wallet));
        secrets.push(arbitrumKey.secret_key);
        expect((await signed(arbitrum.url, '/fapi/v1/positionSide/dual', arbitrumKey)).status).toBe(200);
        const here = await signed(url, '/fapi/v1/positionSide/dual', arbitrumKey);
        expect([here.status, here.body]).toEqual([401, authError('INVALID_API_KEY')]);
        const listed = (await json(`${url}/api/v1/api-keys`, 'GET', undefined, token)).body as {
          id: string;
        }[];
        expect(listed.map((k) => k.id)).not.toContain(arbitrumKey.id);
      } finally {
        await arbitrum.close();
      }
    });

    it('INVALID_API_KEY (401): no key, an unknown key, a malformed key', async () => {
      const k = await newKey(token);
      for (const apiKey of ['', 'a'.repeat(64), 'not-a-key', k.api_key.toUpperCase(), k.api_key.slice(1)]) {
        const res = await signed(url, '/fapi/v1/positionSide/dual', {
          api_key: apiKey,
          secret_key: k.secret_key,
        });
        expect([apiKey, res.status, res.body]).toEqual([apiKey, 401, authError('INVALID_API_KEY')]);
      }
    });

    it('SIGNATURE_INVALID (401): HMAC mismatch, body URL-encoded or not appended, missing timestamp or signature', async () => {
      const k = await newKey(token);
      const body = '{"symbol":"BTCUSDT","marginType":"CROSSED"}';
      const bad = [
        signed(url, '/fapi/v1/positionSide/dual', k, { secret: 'f'.repeat(64) }),
        signed(url, '/fapi/v1/marginType', k, {
          method: 'POST',
          jsonBody: body,
          signedPayload: (q, b) => q + encodeURIComponent(b),
        }),
        signed(url, '/fapi/v1/marginType', k, {
          method: 'POST',
          jsonBody: body,
          signedPayload: (q, b) => `${q}&${new URLSearchParams(JSON.parse(b)).toString()}`,
        }),
        signed(url, '/fapi/v1/marginType', k, { method: 'POST', jsonBody: body, signedPayload: (q) => q }),
        signed(url, '/fapi/v1/marginType', k, {
          method: 'POST',
          jsonBody: body.replace('BTC', 'ETH'),
          signedPayload: (q) => q + body,
        }),
        signed(url, '/fapi/v1/positionSide/dual', k, { omitTimestamp: true }),
        signed(url, '/fapi/v1/positionSide/dual', k, { params: { timestamp: 'soon' }, omitTimestamp: true }),
        http(`${url}/fapi/v1/positionSide/dual?timestamp=${Date.now()}`, {
          headers: { 'x-mbx-apikey': k.api_key },
        }),
      ];
      for (const [i, res] of (await Promise.all(bad)).entries())
        expect([i, res.status, res.body]).toEqual([i, 401, authError('SIGNATURE_INVALID')]);
    });

    it('-1021 (400) outside ±60 s, future included; inside the window is fine', async () => {
      const k = await newKey(token);
      for (const offset of [-59_000, 59_000, 0]) {
        const res = await signed(url, '/fapi/v1/positionSide/dual', k, { timestamp: Date.now() + offset });
        expect([offset, res.status]).toEqual([offset, 200]);
      }
      for (const offset of [-61_000, 61_000, 3_600_000, -86_400_000]) {
        const res = await signed(url, '/fapi/v1/positionSide/dual', k, { timestamp: Date.now() + offset });
        expect([offset, res.status, res.body]).toEqual([
          offset,
          400,
          { code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' },
        ]);
      }
      // recvWindow does not widen it.
      const wide = await signed(url, '/fapi/v1/positionSide/dual', k, {
        params: { recvWindow: '600000' },
        timestamp: Date.now() - 120_000,
      });
      expect(wide.body.code).toBe(-1021);
    });

    it('IP_NOT_ALLOWED (403): X-Forwarded-For counts through the trusted proxy only', async () => {
      const k = await newKey(token, { ip_whitelist: '10.1.2.3,2001:db8::7,127.0.0.2' });
      const via = (xff: string, localAddress = '127.0.0.1') =>
        signed(url, '/fapi/v1/positionSide/dual', k, { headers: { 'x-forwarded-for': xff }, localAddress });
      expect((await via('10.1.2.3')).status).toBe(200);
      expect((await via('2001:DB8:0::7')).status).toBe(200);
      for (const xff of ['10.9.9.9', '2001:db8::8', '10.1.2.3, 10.9.9.9']) {
        const res = await via(xff);
        expect([xff, res.status, res.body]).toEqual([xff, 403, authError('IP_NOT_ALLOWED')]);
      }
      // Through the proxy without a forwarded address, the proxy itself is the client.
      const bare = await signed(url, '/fapi/v1/positionSide/dual', k);
      expect([bare.status, bare.body]).toEqual([403, authError('IP_NOT_ALLOWED')]);
      // A direct client (not the proxy) cannot pick its address with the header.
      const narrow = await newKey(token, { ip_whitelist: '10.1.2.3' });
      const spoofed = await signed(url, '/fapi/v1/positionSide/dual', narrow, {
        headers: { 'x-forwarded-for': '10.1.2.3' },
        localAddress: '127.0.0.2',
      });
      expect([spoofed.status, spoofed.body]).toEqual([403, authError('IP_NOT_ALLOWED')]);
      // ...and is judged by its own address.
      expect((await via('10.9.9.9', '127.0.0.2')).status).toBe(200);
    });

    it('answers -1102 for malformed JSON on FAPI before anything else', async () => {
      const k = await newKey(token);
      const res = await http(
        `${url}/fapi/v1/marginType?timestamp=${Date.now()}&signature=${'0'.repeat(64)}`,
        {
          method: 'POST',
          headers: { 'x-mbx-apikey': k.api_key, 'content-type': 'application/json' },
          body: '{bad',
        },
      );
      expect([res.status, res.body]).toEqual([400, { code: -1102, msg: 'Malformed JSON body.' }]);
    });
  });

  // Last: every secret handed out above.
  it('never writes a secret to the logs or shows it after creation', async () => {
    expect(secrets.length).toBeGreaterThan(40);
    const logs = output.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const s of secrets) expect(logs.includes(s)).toBe(false);
    expect(logs).not.toContain(TEST_JWT_SECRET);
  });
});
