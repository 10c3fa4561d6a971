import { MemoryHotStore } from '@perp/cache';
import { ACCOUNT_FIELDS, accountOrderField, HOT_KEYS, readAccountProjection } from '@perp/contracts';
import { AccountHashes, type AccountHashWrite } from './account-hashes';
import { canceled, copy, makerFillOfOrder1 } from './handlers/__fixtures__/engine-events';
import { ALICE, deposit, newOrder, oid, riskHarness, T0 } from './handlers/__fixtures__/risk-context';

describe('account hashes: what changed, written as it changed', () => {
  const h = riskHarness();
  const hashes = new AccountHashes();
  const hot = new MemoryHotStore();
  const write = async (time: number): Promise<AccountHashWrite> => {
    const w = hashes.write(ALICE, time, h.book.account(ALICE), h.p.openRecordsOf(ALICE));
    await hot.hupdate(w.key, w.set, w.del, { replace: w.replace });
    return w;
  };
  /** What a reader assembles equals the account and open orders the partition holds. */
  const readsAsHeld = async (time: number) =>
    expect(await readAccountProjection(hot, ALICE)).toEqual({
      v: 1,
      user: ALICE,
      time,
      state: h.book.account(ALICE).toState(),
      orders: h.p.openOrdersOf(ALICE),
    });
  afterAll(() => hot.close());

  it('an account this state has not written goes whole, replacing the hash', async () => {
    h.run(deposit(ALICE, '1000'));
    h.run(newOrder(1));
    h.run(newOrder(2, { price: '59000' }));
    await hot.hset(HOT_KEYS.account(ALICE), { [accountOrderField('stale')]: '{}' });
    const w = await write(T0);
    expect(w.replace).toBe(true);
    expect(Object.keys(w.set).sort()).toEqual(
      [ACCOUNT_FIELDS.head, accountOrderField(oid(1)), accountOrderField(oid(2))].sort(),
    );
    await readsAsHeld(T0);
    expect(await hot.hget(HOT_KEYS.account(ALICE), accountOrderField('stale'))).toBeUndefined();
  });

  it('then the head only, while no order changed', async () => {
    const w = await write(T0 + 1);
    expect([Object.keys(w.set), w.del, w.replace]).toEqual([[ACCOUNT_FIELDS.head], [], false]);
    await readsAsHeld(T0 + 1);
  });

  it('a fill rewrites the order it filled (its record and remaining margin), not the others', async () => {
    h.run(makerFillOfOrder1('0.004', 7));
    const w = await write(T0 + 2);
    expect(Object.keys(w.set).sort()).toEqual([ACCOUNT_FIELDS.head, accountOrderField(oid(1))].sort());
    await readsAsHeld(T0 + 2);
  });

  it('an order gone is deleted from the hash', async () => {
    h.run(copy(canceled(ALICE, oid(2)), 8));
    const w = await write(T0 + 3);
    expect([Object.keys(w.set), w.del]).toEqual([[ACCOUNT_FIELDS.head], [accountOrderField(oid(2))]]);
    await readsAsHeld(T0 + 3);
    expect(h.p.openOrdersOf(ALICE).map((o) => o.orderId)).toEqual([oid(1)]);
  });
});
