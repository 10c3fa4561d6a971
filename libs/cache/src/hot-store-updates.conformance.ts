import type { HotStore } from './hot-store';

/** HotStore.hupdate's behaviour, run by the conformance suite on each adapter (`store`: the test's). */
export function describeHashUpdates(store: () => HotStore): void {
  it('sets and deletes fields in one update, leaving the others', async () => {
    await store().hset('u:a', { x: '1', y: '2', z: '3' });
    await store().hupdate('u:a', { x: '10', w: '4' }, ['y', 'y', 'missing']);
    expect(await store().hgetall('u:a')).toEqual({ x: '10', z: '3', w: '4' });
    await store().hupdate('u:a', {}, ['x', 'z', 'w']);
    expect(await store().hgetall('u:a')).toEqual({});
    expect(await store().get('u:a')).toBeUndefined();
    await store().hupdate('u:new', { f: '1' });
    expect(await store().hgetall('u:new')).toEqual({ f: '1' });
    await store().hupdate('u:none', {}, ['f']);
    await store().hupdate('u:none', {});
    expect(await store().get('u:none')).toBeUndefined();
  });

  it('replaces a hash with exactly the fields set; an empty replacement deletes the key', async () => {
    await store().hset('u:r', { a: '1', b: '2' });
    await store().hupdate('u:r', { b: '20', c: '3' }, [], { replace: true });
    expect(await store().hgetall('u:r')).toEqual({ b: '20', c: '3' });
    await store().hupdate('u:r', { d: '4' }, ['b', 'none'], { replace: true });
    expect(await store().hgetall('u:r')).toEqual({ d: '4' });
    await store().hupdate('u:r', {}, [], { replace: true });
    expect(await store().hgetall('u:r')).toEqual({});
    expect(await store().get('u:r')).toBeUndefined();
    await store().set('u:string', 'x');
    await store().hupdate('u:string', { f: 'v' }, [], { replace: true });
    expect(await store().hgetall('u:string')).toEqual({ f: 'v' });
  });

  it('rejects a field both set and deleted, writing nothing', async () => {
    await store().hset('u:both', { a: '1', b: '2' });
    await expect(store().hupdate('u:both', { a: '9', c: '3' }, ['b', 'c'])).rejects.toThrow(RangeError);
    await expect(store().hupdate('u:both', { a: '9' }, ['a'], { replace: true })).rejects.toThrow(RangeError);
    await expect(store().hupdate('u:fresh', { a: '9' }, ['a'])).rejects.toThrow(RangeError);
    expect(await store().hgetall('u:both')).toEqual({ a: '1', b: '2' });
    expect(await store().hgetall('u:fresh')).toEqual({});
  });

  it('deletes thousands of fields in one update', async () => {
    const fields = Array.from({ length: 2_500 }, (_, i) => `f${i}`);
    await store().hset('u:big', { ...Object.fromEntries(fields.map((f) => [f, '1'])), kept: 'k' });
    await store().hupdate('u:big', { added: 'a' }, fields);
    expect(await store().hgetall('u:big')).toEqual({ kept: 'k', added: 'a' });
  });

  it('never shows a reader a half-applied update', async () => {
    const a = { x: 'a', p: '1', q: '1' };
    const b = { x: 'b', r: '2', s: '2' };
    await store().hset('u:swap', a);
    const reads = [store().hgetall('u:swap')];
    const writes: Promise<void>[] = [];
    // Nothing awaited: an adapter that yields between its steps lets the next read in between.
    for (let i = 0; i < 20; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      const stale = Object.keys(from).filter((f) => !(f in to));
      writes.push(
        i % 4 < 2
          ? store().hupdate('u:swap', to, stale)
          : store().hupdate('u:swap', to, [], { replace: true }),
      );
      reads.push(store().hgetall('u:swap'));
    }
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) expect([a, b]).toContainEqual(read);
    expect(await store().hgetall('u:swap')).toEqual(a);
  });
}
