import { randomBytes } from 'node:crypto';
import { UserEntity } from '../entities';
import { userIdForAddress } from '@perp/contracts';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { AdminAuditRepository } from './admin-audit.repository';
import { ApiKeyLimitReachedError, ApiKeyRepository } from './api-key.repository';
import { UserRepository } from './user.repository';

const address = () => `0x${randomBytes(20).toString('hex')}`;
const hex64 = () => randomBytes(32).toString('hex');
const CHAIN = 'devnet';

describe('account repositories (real Postgres)', () => {
  let db: TestDatabase;
  let users: UserRepository;
  let keys: ApiKeyRepository;
  let audit: AdminAuditRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 8 });
    users = new UserRepository(db.dataSource.manager);
    keys = new ApiKeyRepository(db.dataSource.manager);
    audit = new AdminAuditRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  describe('users', () => {
    it('creates a user once per address, with an id derived from it, in lowercase', async () => {
      const a = address();
      const first = await users.findOrCreate(a.toUpperCase().replace('0X', '0x'));
      const again = await users.findOrCreate(a);
      expect(first.created).toBe(true);
      expect(again.created).toBe(false);
      expect(again.user).toEqual(first.user);
      expect(first.user).toMatchObject({
        id: userIdForAddress(a),
        address: a,
        vipTier: 0,
        marginMode: 'unified',
      });
      expect(first.user.createdAt).toBeInstanceOf(Date);
      expect(await users.findByAddress(a.toUpperCase().replace('0X', '0x'))).toEqual(first.user);
      expect(await users.findById(first.user.id)).toEqual(first.user);
    });

    it('gives concurrent first logins the same row', async () => {
      const a = address();
      const results = await Promise.all([1, 2, 3, 4].map(() => users.findOrCreate(a)));
      expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
    });

    it('refuses malformed addresses, and the table refuses mixed case', async () => {
      await expect(users.findOrCreate('0x1234')).rejects.toThrow('not a 0x address');
      await expect(
        db.dataSource.getRepository(UserEntity).insert({ id: userIdForAddress('x'), address: '0xABC' }),
      ).rejects.toThrow(/users_address_lower/);
    });

    it('sets VIP tier and margin mode', async () => {
      const { user } = await users.findOrCreate(address());
      expect(await users.setVipTier(user.id, 3)).toBe(true);
      expect(await users.setMarginMode(user.id, 'isolated')).toBe(true);
      expect(await users.findById(user.id)).toMatchObject({ vipTier: 3, marginMode: 'isolated' });
      expect(await users.setVipTier(userIdForAddress(address()), 1)).toBe(false);
      await expect(users.setVipTier(user.id, -1)).rejects.toThrow(RangeError);
    });
  });

  describe('API keys', () => {
    it('creates, finds, lists, updates, touches and deletes a key', async () => {
      const { user } = await users.findOrCreate(address());
      const apiKey = hex64();
      const key = await keys.create({
        userId: user.id,
        apiKey,
        secretCiphertext: 'v1:ciphertext',
        label: 'bot',
        chain: CHAIN,
      });
      expect(key).toMatchObject({
        userId: user.id,
        apiKey,
        secretCiphertext: 'v1:ciphertext',
        label: 'bot',
        ipWhitelist: '',
        status: 'active',
        lastUsedAt: null,
      });
      expect(await keys.findByApiKey(apiKey, CHAIN)).toEqual(key);
      expect(await keys.listByUser(user.id, CHAIN)).toEqual([key]);

      const updated = await keys.update(user.id, key.id, CHAIN, {
        status: 'disabled',
        ipWhitelist: '1.2.3.4',
      });
      expect(updated).toMatchObject({ status: 'disabled', ipWhitelist: '1.2.3.4', label: 'bot' });
      const other = await users.findOrCreate(address());
      expect(await keys.update(other.user.id, key.id, CHAIN, { status: 'active' })).toBeUndefined();
      expect(await keys.delete(other.user.id, key.id, CHAIN)).toBe(false);

      const used = new Date('2030-01-02T03:04:05.678Z');
      await keys.touchLastUsed(key.id, used);
      expect((await keys.findByApiKey(apiKey, CHAIN))?.lastUsedAt).toEqual(used);

      expect(await keys.delete(user.id, key.id, CHAIN)).toBe(true);
      expect(await keys.findByApiKey(apiKey, CHAIN)).toBeUndefined();
    });

    it('never moves last_used_at backwards (late or out-of-order writes keep the newest use)', async () => {
      const { user } = await users.findOrCreate(address());
      const key = await keys.create({
        userId: user.id,
        chain: CHAIN,
        apiKey: hex64(),
        secretCiphertext: 'v1:c',
      });
      const lastUsed = async () => (await keys.findForUser(user.id, key.id, CHAIN))?.lastUsedAt;
      const t1 = new Date('2030-01-02T03:04:05.100Z');
      const t2 = new Date('2030-01-02T03:04:05.200Z');
      await keys.touchLastUsed(key.id, t1); // from NULL
      expect(await lastUsed()).toEqual(t1);
      await keys.touchLastUsed(key.id, t2);
      expect(await lastUsed()).toEqual(t2);
      await keys.touchLastUsed(key.id, t1); // a replica flushing an older use
      expect(await lastUsed()).toEqual(t2);
      await keys.touchLastUsed(key.id, t2);
      expect(await lastUsed()).toEqual(t2);
      // Concurrent flushes in any order: the newest wins.
      const times = Array.from({ length: 8 }, (_, i) => new Date(t2.getTime() + 1000 * (i + 1)));
      await Promise.all([...times].reverse().map((t) => keys.touchLastUsed(key.id, t)));
      expect(await lastUsed()).toEqual(times[times.length - 1]);
      // Another key's row is untouched.
      const other = await keys.create({
        userId: user.id,
        chain: CHAIN,
        apiKey: hex64(),
        secretCiphertext: 'v1:c',
      });
      expect((await keys.findForUser(user.id, other.id, CHAIN))?.lastUsedAt).toBeNull();
    });

    it('refuses a duplicate api_key and an unknown status', async () => {
      const { user } = await users.findOrCreate(address());
      const apiKey = hex64();
      await keys.create({ userId: user.id, chain: CHAIN, apiKey, secretCiphertext: 's' });
      await expect(
        keys.create({ userId: user.id, chain: CHAIN, apiKey, secretCiphertext: 's' }),
      ).rejects.toThrow(/api_keys_api_key_key/);
      const [key] = await keys.listByUser(user.id, CHAIN);
      await expect(keys.update(user.id, key.id, CHAIN, { status: 'deleted' as never })).rejects.toThrow(
        /api_keys_status_check/,
      );
    });

    it('enforces the per-user limit, also under concurrent creations', async () => {
      const { user } = await users.findOrCreate(address());
      const attempts = await Promise.allSettled(
        Array.from({ length: 7 }, () =>
          keys.create({ userId: user.id, chain: CHAIN, apiKey: hex64(), secretCiphertext: 's' }, 3),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
      for (const a of attempts.filter((a) => a.status === 'rejected'))
        expect((a as PromiseRejectedResult).reason).toBeInstanceOf(ApiKeyLimitReachedError);
      expect(await keys.countByUser(user.id, CHAIN)).toBe(3);
    });

    it("scopes keys to their chain deployment: another chain's key is not found, its limit is separate", async () => {
      const { user } = await users.findOrCreate(address());
      const other = await keys.create({
        userId: user.id,
        chain: 'arbitrum',
        apiKey: hex64(),
        secretCiphertext: 's',
      });
      expect(await keys.findByApiKey(other.apiKey, CHAIN)).toBeUndefined();
      expect(await keys.findByApiKey(other.apiKey, 'arbitrum')).toMatchObject({ id: other.id });
      expect(await keys.listByUser(user.id, CHAIN)).toEqual([]);
      expect(await keys.update(user.id, other.id, CHAIN, { status: 'disabled' })).toBeUndefined();
      expect(await keys.delete(user.id, other.id, CHAIN)).toBe(false);
      await keys.create({ userId: user.id, chain: CHAIN, apiKey: hex64(), secretCiphertext: 's' }, 1);
      expect(await keys.countByUser(user.id, 'arbitrum')).toBe(1);
    });

    it('gives keys made before keys had a chain to the first deployment that claims them', async () => {
      const { user } = await users.findOrCreate(address());
      const legacy = await keys.create({
        userId: user.id,
        chain: CHAIN,
        apiKey: hex64(),
        secretCiphertext: 's',
      });
      await db.dataSource.query(`UPDATE api_keys SET chain = NULL WHERE id = $1`, [legacy.id]);
      expect(await keys.findByApiKey(legacy.apiKey, CHAIN)).toBeUndefined();
      expect(await keys.claimUnowned('arbitrum')).toBeGreaterThanOrEqual(1);
      expect(await keys.claimUnowned(CHAIN)).toBe(0);
      expect(await keys.findByApiKey(legacy.apiKey, 'arbitrum')).toMatchObject({ id: legacy.id });
    });

    it('refuses a key for an unknown user', async () => {
      await expect(
        keys.create({
          userId: userIdForAddress(address()),
          chain: CHAIN,
          apiKey: hex64(),
          secretCiphertext: 's',
        }),
      ).rejects.toThrow('unknown user');
    });
  });

  describe('admin audit', () => {
    it('appends entries and lists them newest first, by action', async () => {
      const first = await audit.append({
        actor: 'admin',
        action: 'market.pause',
        payload: { symbol: 'BTCUSDT' },
      });
      await new Promise((r) => setTimeout(r, 5));
      const second = await audit.append({
        actor: 'admin',
        action: 'user.vip',
        payload: { tier: 2, ok: [1, 'x'] },
      });
      expect(second.payload).toEqual({ tier: 2, ok: [1, 'x'] });
      const all = await audit.list();
      expect(all.map((e) => e.id)).toEqual([second.id, first.id]);
      expect((await audit.list({ action: 'market.pause' })).map((e) => e.id)).toEqual([first.id]);
      expect((await audit.list({ before: second.createdAt })).map((e) => e.id)).toEqual([first.id]);
      expect(await audit.list({ limit: 1 })).toHaveLength(1);
    });
  });
});
