import { type HotStore, MemoryHotStore, RedisHotStore } from '@perp/cache';
import { LocalAnswers, MAX_KEPT_BODY_BYTES } from './local-answers';

describe('LocalAnswers', () => {
  let hot: MemoryHotStore;
  beforeEach(() => (hot = new MemoryHotStore()));
  afterEach(() => hot.close());
  const body = Buffer.from('{"a":1}');
  const one = {};

  it('gives a kept body while every key is at its version and before `until`', async () => {
    const answers = new LocalAnswers<object>(hot);
    await hot.set('k1', 'x');
    const versions = answers.versions(['k1', 'k2']);
    answers.keep(one, ['k1', 'k2'], versions, body, 100);
    expect(answers.get(one, 99)).toBe(body);
    expect(answers.get(one, 100)).toBeUndefined();
    expect(answers.get({}, 0)).toBeUndefined();
    await hot.hset('k2', { f: '1' }); // a key missing when kept, written since
    expect(answers.get(one, 0)).toBeUndefined();
  });

  it('keeps no body over MAX_KEPT_BODY_BYTES, and lets go of one that is no longer the answer', async () => {
    const answers = new LocalAnswers<object>(hot);
    await hot.set('k', 'x');
    const big = Buffer.alloc(MAX_KEPT_BODY_BYTES + 1);
    answers.keep(one, ['k'], answers.versions(['k']), body);
    answers.keep(one, ['k'], answers.versions(['k']), big, 50);
    expect(answers.get(one, 0)).toBeUndefined();
    const edge = Buffer.alloc(MAX_KEPT_BODY_BYTES);
    answers.keep(one, ['k'], answers.versions(['k']), edge, 50);
    expect(answers.get(one, 0)).toBe(edge);
    // Asked for past `until`, it is let go: an earlier clock no longer finds it.
    expect(answers.get(one, 50)).toBeUndefined();
    expect(answers.get(one, 0)).toBeUndefined();
    answers.keep(one, ['k'], answers.versions(['k']), edge);
    await hot.set('k', 'y');
    expect(answers.get(one, 0)).toBeUndefined();
  });

  it('never gives a body kept from versions taken before a write', async () => {
    const answers = new LocalAnswers<object>(hot);
    const versions = answers.versions(['k']);
    await hot.set('k', 'written between the versions and the read');
    answers.keep(one, ['k'], versions, body);
    expect(answers.get(one, 0)).toBeUndefined();
  });

  it('keeps nothing with a store that has no local versions (Redis)', () => {
    // The Redis adapter's methods, unconnected: versions() looks for localVersion only.
    const store = Object.create(RedisHotStore.prototype) as HotStore;
    const answers = new LocalAnswers<object>(store);
    const versions = answers.versions(['k']);
    expect(versions).toBeUndefined();
    answers.keep(one, ['k'], versions, body);
    expect(answers.get(one, 0)).toBeUndefined();
  });

  it('makes a body only to keep it: not without versions, nor again for the same versions', async () => {
    const answers = new LocalAnswers<object>(hot);
    const made = jest.fn(() => body);
    const versions = answers.versions(['k']);
    answers.keep(one, ['k'], versions, made);
    answers.keep(one, ['k'], versions, made);
    expect(made).toHaveBeenCalledTimes(1);
    await hot.set('k', 'x');
    answers.keep(one, ['k'], answers.versions(['k']), made);
    expect(made).toHaveBeenCalledTimes(2);
    answers.keep(one, ['k'], undefined, made);
    expect(made).toHaveBeenCalledTimes(2);
    expect(answers.get(one, 0)).toBe(body);
  });

  it('keeps any value, per object', () => {
    const answers = new LocalAnswers<object, { seq: number }>(hot);
    const book = { seq: 7 };
    answers.keep(one, ['k'], answers.versions(['k']), book);
    expect(answers.get(one, 0)).toBe(book);
    expect(answers.get({}, 0)).toBeUndefined();
  });
});
