import { MemoryHotStore } from '@perp/cache';
import { Money } from '@perp/domain';
import { OPEN_INTEREST_KEY, openInterestFields, readOpenInterest } from './open-interest';

const m = (v: string) => new Money(v);

describe('openInterestFields', () => {
  it('sums the longs and the shorts of the positions followed', async () => {
    const positions = new Map([
      ['a', m('2.5')],
      ['b', m('-1.5')],
      ['c', m('-1')],
    ]);
    expect(openInterestFields(positions, 4_000)).toEqual({ long: '2.5', short: '2.5', time: '4000' });
    const hot = new MemoryHotStore();
    await hot.hset(OPEN_INTEREST_KEY('XUSDT'), openInterestFields(positions, 4_000));
    const oi = await readOpenInterest(hot, 'XUSDT');
    expect([oi.long.toFixed(), oi.short.toFixed(), oi.time]).toEqual(['2.5', '2.5', 4_000]);
    await hot.close();
  });

  it('no position: zero on both sides', () => {
    expect(openInterestFields(new Map(), 1)).toEqual({ long: '0', short: '0', time: '1' });
  });
});

describe('readOpenInterest', () => {
  it('reads zero for a symbol without trades', async () => {
    const oi = await readOpenInterest(new MemoryHotStore(), 'XUSDT');
    expect([oi.long.toFixed(), oi.short.toFixed(), oi.time]).toEqual(['0', '0', 0]);
  });
});
