import type { Subscription } from './bus';
import { Joining, joinTogether } from './joining';

function subscription(): Subscription & { closed: number } {
  const s = {
    closed: 0,
    close: () => {
      s.closed++;
      return Promise.resolve();
    },
  };
  return s as unknown as Subscription & { closed: number };
}

describe('joining groups together', () => {
  it('gives the subscriptions in the order of the joins', async () => {
    const a = subscription();
    const b = subscription();
    const late = new Promise<Subscription>((r) => setTimeout(() => r(a), 20));
    await expect(joinTogether([late, Promise.resolve(b)])).resolves.toEqual([a, b]);
  });

  it('closes the groups that joined when another fails, then rethrows its error', async () => {
    const a = subscription();
    const b = subscription();
    const failure = new Error('coordinator not available');
    await expect(
      joinTogether([Promise.resolve(a), Promise.reject(failure), Promise.resolve(b)]),
    ).rejects.toBe(failure);
    expect([a.closed, b.closed]).toEqual([1, 1]);
  });

  it('refuses to wait for joins that were never started', async () => {
    await expect(new Joining().joined()).rejects.toThrow('no join was started');
  });
});
