import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import type { ErrorReporter, HotStore } from './hot-store';
import { describeHashUpdates } from './hot-store-updates.conformance';

/** Makes a fresh store; stores of one suite share one key space (Redis: the suite's prefix). */
export type HotStoreFactory = (options: { onError?: ErrorReporter }) => Promise<HotStore>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; fails after `timeoutMs` (a bound on waiting, not a speed claim). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

const Decimal = BigNumber.clone({ EXPONENTIAL_AT: 1e9 });

/**
 * The behaviour every HotStore adapter must have (documented on the HotStore interface). TTL tests
 * use short TTLs and only assert what must hold after waiting longer than them.
 */
export function describeHotStoreConformance(name: string, factory: HotStoreFactory): void {
  describe(`HotStore conformance: ${name}`, () => {
    let store: HotStore;
    let errors: unknown[];

    beforeEach(async () => {
      errors = [];
      store = await factory({ onError: (e) => errors.push(e) });
    });
    afterEach(async () => {
      await store.close();
    });

    describe('strings', () => {
      it('gets, sets, overwrites and deletes', async () => {
        expect(await store.get('s:a')).toBeUndefined();
        await store.set('s:a', 'one');
        await store.set('s:a', 'two');
        await store.set('s:b', '');
        expect(await store.get('s:a')).toBe('two');
        expect(await store.get('s:b')).toBe('');
        expect(await store.del('s:a', 's:a', 's:b', 's:missing')).toBe(2);
        expect(await store.del()).toBe(0);
        expect(await store.get('s:a')).toBeUndefined();
      });

      it('sets many keys at once, later entries of a key winning, with per-entry TTLs', async () => {
        await store.set('m:old', 'before', { ttlMs: 60 });
        await store.setMany([
          { key: 'm:a', value: '1' },
          { key: 'm:b', value: '2', ttlMs: 60 },
          { key: 'm:a', value: '3' },
          { key: 'm:old', value: 'after' },
        ]);
        await store.setMany([]);
        expect(await store.get('m:a')).toBe('3');
        expect(await store.get('m:b')).toBe('2');
        await sleep(200);
        expect(await store.get('m:b')).toBeUndefined();
        expect(await store.get('m:old')).toBe('after');
        await expect(store.setMany([{ key: 'm:bad', value: 'x', ttlMs: 0 }])).rejects.toThrow();
        expect(await store.get('m:bad')).toBeUndefined();
      });

      it('expires a key after its TTL, and set without TTL removes the TTL', async () => {
        await store.set('s:ttl', 'x', { ttlMs: 60 });
        await store.set('s:long', 'x', { ttlMs: 60_000 });
        await store.set('s:cleared', 'x', { ttlMs: 60 });
        await store.set('s:cleared', 'y');
        await sleep(200);
        expect(await store.get('s:ttl')).toBeUndefined();
        expect(await store.get('s:long')).toBe('x');
        expect(await store.get('s:cleared')).toBe('y');
      });

      it('sets if absent, and again once the holder expired', async () => {
        expect(await store.setIfAbsent('s:lock', 'me', { ttlMs: 60 })).toBe(true);
        expect(await store.setIfAbsent('s:lock', 'you', { ttlMs: 60 })).toBe(false);
        expect(await store.get('s:lock')).toBe('me');
        await sleep(200);
        expect(await store.setIfAbsent('s:lock', 'you')).toBe(true);
        expect(await store.get('s:lock')).toBe('you');
        await store.hset('s:hash', { f: '1' });
        expect(await store.setIfAbsent('s:hash', 'x')).toBe(false);
      });

      it('lets exactly one of many concurrent setIfAbsent win', async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.setIfAbsent('s:race', String(i), { ttlMs: 60_000 })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('s:race')).toBe(String(results.indexOf(true)));
      });

      it('expires existing keys on demand', async () => {
        expect(await store.expire('s:none', 60)).toBe(false);
        await store.set('s:e', 'x');
        await store.hset('s:eh', { f: 'v' });
        expect(await store.expire('s:e', 60)).toBe(true);
        expect(await store.expire('s:eh', 60)).toBe(true);
        await sleep(200);
        expect(await store.get('s:e')).toBeUndefined();
        expect(await store.hgetall('s:eh')).toEqual({});
      });

      it('rejects invalid TTLs', async () => {
        await expect(store.set('s:x', 'x', { ttlMs: 0 })).rejects.toThrow(RangeError);
        await expect(store.setIfAbsent('s:x', 'x', { ttlMs: 1.5 })).rejects.toThrow(RangeError);
        await expect(store.expire('s:x', -1)).rejects.toThrow(RangeError);
      });
    });

    describe('window counters', () => {
      it('counts within a window that later increments do not extend', async () => {
        const a = await store.incrWindow('w:a', 1, 60_000);
        const b = await store.incrWindow('w:a', 2, 60_000);
        const c = await store.incrWindow('w:a', 3, 60_000);
        expect([a.count, b.count, c.count]).toEqual([1, 3, 6]);
        for (const r of [a, b, c]) {
          expect(r.resetInMs).toBeGreaterThan(0);
          expect(r.resetInMs).toBeLessThanOrEqual(60_000);
        }
        expect(c.resetInMs).toBeLessThanOrEqual(a.resetInMs);
        expect((await store.incrWindow('w:other', 1, 60_000)).count).toBe(1);
        expect(await store.get('w:a')).toBe('6');
      });

      it('starts a new window after the previous one ended', async () => {
        expect((await store.incrWindow('w:short', 5, 60)).count).toBe(5);
        await sleep(200);
        const next = await store.incrWindow('w:short', 1, 60_000);
        expect(next.count).toBe(1);
        expect(next.resetInMs).toBeGreaterThan(60);
      });

      it('reads with amount 0 without starting a window', async () => {
        expect(await store.incrWindow('w:peek', 0, 1_000)).toEqual({ count: 0, resetInMs: 1_000 });
        expect(await store.get('w:peek')).toBeUndefined();
        await store.incrWindow('w:peek', 4, 60_000);
        const peek = await store.incrWindow('w:peek', 0, 60_000);
        expect(peek.count).toBe(4);
        expect(peek.resetInMs).toBeGreaterThan(0);
        expect(peek.resetInMs).toBeLessThanOrEqual(60_000);
      });

      it('is atomic under concurrent increments', async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.incrWindow('w:race', 1, 60_000)),
        );
        expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
      });

      it('resets on del, refuses bad arguments and non-integer values', async () => {
        await store.incrWindow('w:del', 3, 60_000);
        await store.del('w:del');
        expect((await store.incrWindow('w:del', 1, 60_000)).count).toBe(1);
        await expect(store.incrWindow('w:x', -1, 1_000)).rejects.toThrow(RangeError);
        await expect(store.incrWindow('w:x', 1.5, 1_000)).rejects.toThrow(RangeError);
        await expect(store.incrWindow('w:x', 1, 0)).rejects.toThrow(RangeError);
        await store.set('w:text', 'abc');
        await expect(store.incrWindow('w:text', 1, 1_000)).rejects.toThrow(/not an integer/);
        await expect(store.incrWindow('w:text', 0, 1_000)).rejects.toThrow(/not an integer/);
      });
    });

    describe('hashes', () => {
      it('sets, gets, lists and deletes fields; an emptied hash no longer exists', async () => {
        expect(await store.hgetall('h:a')).toEqual({});
        expect(await store.hset('h:a', { x: '1', y: '2' })).toBe(2);
        expect(await store.hset('h:a', { y: '3', z: '' })).toBe(1);
        expect(await store.hget('h:a', 'y')).toBe('3');
        expect(await store.hget('h:a', 'none')).toBeUndefined();
        expect(await store.hgetall('h:a')).toEqual({ x: '1', y: '3', z: '' });
        expect(await store.hdel('h:a', 'x', 'x', 'none')).toBe(1);
        expect(await store.hdel('h:a', 'y', 'z')).toBe(2);
        expect(await store.hgetall('h:a')).toEqual({});
        expect(await store.get('h:a')).toBeUndefined();
        expect(await store.hdel('h:missing', 'f')).toBe(0);
        await expect(store.hset('h:a', {})).rejects.toThrow(RangeError);
      });

      it('keeps the TTL of a hash across writes, but not across a replacing update', async () => {
        await store.hset('h:ttl', { a: '1' });
        await store.hset('h:ttl-replaced', { a: '1' });
        await store.expire('h:ttl', 100);
        await store.expire('h:ttl-replaced', 100);
        await store.hset('h:ttl', { b: '2' });
        await store.hincrby('h:ttl', 'c', '1');
        await store.hupdate('h:ttl', { d: '4' }, ['a']);
        await store.hupdate('h:ttl-replaced', { b: '2' }, [], { replace: true });
        await sleep(300);
        expect(await store.hgetall('h:ttl')).toEqual({});
        expect(await store.hgetall('h:ttl-replaced')).toEqual({ b: '2' });
      });

      describeHashUpdates(() => store);

      it('adds decimals exactly and answers in canonical form', async () => {
        const cases: [string | undefined, string, string][] = [
          [undefined, '0.1', '0.1'],
          ['0.1', '0.2', '0.3'],
          [
            '123456789012345678901234567890.123456789',
            '0.000000000000000001',
            '123456789012345678901234567890.123456789000000001',
          ],
          ['1.5', '-1.5', '0'],
          ['-0.5', '0.25', '-0.25'],
          ['0.25', '-0.5', '-0.25'],
          ['1.50', '0', '1.5'],
          ['999.999', '0.001', '1000'],
          ['-999.999', '-0.001', '-1000'],
          ['1000', '-0.001', '999.999'],
          ['7', '+5', '12'],
          ['7', '.5', '7.5'],
          ['7', '5.', '12'],
          ['0', '-0.000', '0'],
          ['00012.3400', '0', '12.34'],
        ];
        for (const [i, [start, delta, expected]] of cases.entries()) {
          if (start !== undefined) await store.hset('h:dec', { [`f${i}`]: start });
          expect([start, delta, await store.hincrby('h:dec', `f${i}`, delta)]).toEqual([
            start,
            delta,
            expected,
          ]);
          expect(await store.hget('h:dec', `f${i}`)).toBe(expected);
        }
      });

      it('matches exact decimal arithmetic on random inputs', async () => {
        const decimal = fc
          .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }))
          .map(([neg, digits, scale]) =>
            new Decimal(`${neg ? '-' : ''}${digits}`).shiftedBy(-scale).toFixed(),
          );
        let n = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(decimal, { minLength: 1, maxLength: 4 }), async (deltas) => {
            const field = `p${n++}`;
            let expected = new Decimal(0);
            for (const d of deltas) {
              expected = expected.plus(d);
              expect(await store.hincrby('h:prop', field, d)).toBe(expected.toFixed());
            }
          }),
          { numRuns: 100 },
        );
      });

      it('is atomic under concurrent increments', async () => {
        await Promise.all(Array.from({ length: 100 }, () => store.hincrby('h:race', 'f', '0.01')));
        expect(await store.hget('h:race', 'f')).toBe('1');
      });

      it('refuses non-decimal deltas and fields', async () => {
        for (const bad of ['abc', '1e5', '0x10', ' 1', '', '.', '-', '1.2.3'])
          await expect(store.hincrby('h:bad', 'f', bad)).rejects.toThrow(TypeError);
        await store.hset('h:bad', { text: 'abc' });
        await expect(store.hincrby('h:bad', 'text', '1')).rejects.toThrow(/not a decimal/);
        expect(await store.hget('h:bad', 'text')).toBe('abc');
      });
    });

    it('refuses to use a key as the wrong kind (WRONGTYPE)', async () => {
      await store.set('t:string', 'x');
      await store.hset('t:hash', { f: 'v' });
      await expect(store.hset('t:string', { f: 'v' })).rejects.toThrow(/^WRONGTYPE/);
      await expect(store.hget('t:string', 'f')).rejects.toThrow(/^WRONGTYPE/);
      await expect(store.hincrby('t:string', 'f', '1')).rejects.toThrow(/WRONGTYPE/);
      await expect(store.get('t:hash')).rejects.toThrow(/^WRONGTYPE/);
      await expect(store.incrWindow('t:hash', 1, 1_000)).rejects.toThrow(/WRONGTYPE/);
      await expect(store.hupdate('t:string', { f: 'v' }, ['g'])).rejects.toThrow(/^WRONGTYPE/);
      await expect(store.hupdate('t:string', {}, ['g'])).rejects.toThrow(/^WRONGTYPE/);
      expect(await store.get('t:string')).toBe('x');
      await store.set('t:hash', 'replaced');
      expect(await store.get('t:hash')).toBe('replaced');
    });

    describe('pub/sub', () => {
      it('delivers to every subscriber, in order, never inside publish', async () => {
        const a: string[] = [];
        const b: [string, string][] = [];
        const offA = await store.subscribe('c:1', (m) => void a.push(m));
        const offB = await store.subscribe('c:1', (m, c) => void b.push([m, c]));
        const published = store.publish('c:1', 'm1');
        expect(a).toEqual([]);
        await published;
        await store.publish('c:1', 'm2');
        await store.publish('c:1', 'm3');
        await store.publish('c:other', 'elsewhere');
        await waitFor(() => a.length === 3 && b.length === 3);
        expect(a).toEqual(['m1', 'm2', 'm3']);
        expect(b).toEqual([
          ['m1', 'c:1'],
          ['m2', 'c:1'],
          ['m3', 'c:1'],
        ]);
        await offA();
        await offB();
      });

      it('stops delivering to a subscription once unsubscribed', async () => {
        const gone: string[] = [];
        const stays: string[] = [];
        const off = await store.subscribe('c:2', (m) => void gone.push(m));
        await store.subscribe('c:2', (m) => void stays.push(m));
        await off();
        await off();
        await store.publish('c:2', 'after');
        await waitFor(() => stays.length === 1);
        expect(gone).toEqual([]);
      });

      it('delivers nothing to a channel nobody listens to any more, and resumes on a new subscription', async () => {
        const old: string[] = [];
        const off = await store.subscribe('c:3', (m) => void old.push(m));
        await off();
        await store.publish('c:3', 'lost');
        const fresh: string[] = [];
        await store.subscribe('c:3', (m) => void fresh.push(m));
        await store.publish('c:3', 'found');
        await waitFor(() => fresh.length >= 1);
        expect(fresh).toEqual(['found']);
        expect(old).toEqual([]);
      });

      it('reports a failing handler without disturbing the others', async () => {
        const got: string[] = [];
        await store.subscribe('c:4', () => {
          throw new Error('sync failure');
        });
        await store.subscribe('c:4', async () => {
          throw new Error('async failure');
        });
        await store.subscribe('c:4', (m) => void got.push(m));
        await store.publish('c:4', 'one');
        await store.publish('c:4', 'two');
        await waitFor(() => got.length === 2 && errors.length === 4);
        expect(got).toEqual(['one', 'two']);
        expect((errors as Error[]).map((e) => e.message).sort()).toEqual([
          'async failure',
          'async failure',
          'sync failure',
          'sync failure',
        ]);
      });
    });

    it('answers ping until closed', async () => {
      expect(await store.ping()).toBe(true);
      await store.close();
      expect(await store.ping()).toBe(false);
    });
  });
}
