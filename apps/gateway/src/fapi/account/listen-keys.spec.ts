import { MemoryHotStore } from '@perp/cache';
import { ListenKeyRepository, openTestDatabase, type TestDatabase } from '@perp/persistence';
import { LISTEN_KEY_KEYS, LISTEN_KEY_TTL_MS, listenKeyOwner, ListenKeys } from './listen-keys';

const ALICE = '0x' + 'a1'.repeat(20);
const BOB = '0x' + 'b2'.repeat(20);

describe('listen keys: the hot store in front, Postgres behind (real Postgres, memory hot store)', () => {
  let db: TestDatabase;
  let repo: ListenKeyRepository;
  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    repo = new ListenKeyRepository(db.dataSource.manager);
  });
  afterAll(() => db?.close());

  it('a hot store that lost a key (a restart) finds it again in Postgres, with its resume place', async () => {
    const first = new MemoryHotStore();
    const key = await new ListenKeys(first, repo).open(ALICE);
    await repo.saveCursors([{ listenKey: key, cursor: '3/41' }]);
    const restarted = new MemoryHotStore();
    expect(await listenKeyOwner(restarted, repo, key)).toBe(ALICE);
    expect(await restarted.get(LISTEN_KEY_KEYS.cursor(key))).toBe('3/41');
    // The same key again for the same user, not a second one (POST listenKey is idempotent).
    expect(await new ListenKeys(new MemoryHotStore(), repo).open(ALICE)).toBe(key);
    await Promise.all([first.close(), restarted.close()]);
  });

  it('a keepalive extends the key in Postgres too; a closed key is gone from both', async () => {
    const hot = new MemoryHotStore();
    const keys = new ListenKeys(hot, repo);
    const key = await keys.open(BOB);
    const before = (await repo.find(key, Date.now()))!.expiresAt;
    await new Promise((r) => setTimeout(r, 5));
    expect(await keys.keepAlive(BOB)).toBe(key);
    expect((await repo.find(key, Date.now()))!.expiresAt).toBeGreaterThan(before);
    await keys.close(BOB, key);
    expect(await listenKeyOwner(new MemoryHotStore(), repo, key)).toBeUndefined();
    expect(await keys.active(BOB)).toBeUndefined();
    await hot.close();
  });

  it('an expired key is not found, and opening a new one forgets it', async () => {
    const hot = new MemoryHotStore();
    const key = await new ListenKeys(hot, repo).open(BOB);
    const later = Date.now() + LISTEN_KEY_TTL_MS + 1;
    expect(await listenKeyOwner(new MemoryHotStore(), repo, key, later)).toBeUndefined();
    expect(await repo.activeOf(BOB, later)).toBeUndefined();
    await repo.purgeExpired(BOB, later);
    expect(await repo.find(key, 0)).toBeUndefined();
    await hot.close();
  });
});
