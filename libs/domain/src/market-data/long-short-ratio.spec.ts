import fc from 'fast-check';
import { Money } from '../money/money';
import {
  accountRatioRow,
  globalAccountRatio,
  positionRatioRow,
  type SignedPositions,
  SymbolPositions,
  topAccounts,
  topTraderAccountRatio,
  topTraderPositionRatio,
} from './long-short-ratio';

const T = Date.UTC(2026, 0, 1);
const m = (v: string | number) => new Money(v);
const book = (entries: Record<string, string>): SignedPositions =>
  new Map(Object.entries(entries).map(([u, s]) => [u, m(s)]));

describe('globalAccountRatio', () => {
  it('counts accounts net long and net short among those with a position', () => {
    const r = globalAccountRatio(book({ a: '1', b: '2', c: '-0.5', d: '0', e: '3' }));
    expect(accountRatioRow(r, T)).toEqual({
      longShortRatio: '3.0000',
      longAccount: '0.7500',
      shortAccount: '0.2500',
      timestamp: String(T),
    });
  });

  it('keeps the rendered shares summing to 1', () => {
    // 1 long of 3: 0.3333... and 0.6666...; rendered 0.3333 and 0.6667.
    const r = globalAccountRatio(book({ a: '1', b: '-1', c: '-1' }));
    expect(accountRatioRow(r, T)).toMatchObject({
      longAccount: '0.3333',
      shortAccount: '0.6667',
      longShortRatio: '0.5000',
    });
    const two = globalAccountRatio(book({ a: '1', b: '1', c: '-1' }));
    expect(accountRatioRow(two, T)).toMatchObject({ longAccount: '0.6667', shortAccount: '0.3333' });
    expect(r.longAccount.plus(r.shortAccount).toFixed()).toBe('1');
  });

  it('answers zeros without positions, and ratio 0 when one side is empty', () => {
    expect(accountRatioRow(globalAccountRatio(book({})), T)).toMatchObject({
      longShortRatio: '0.0000',
      longAccount: '0.0000',
      shortAccount: '0.0000',
    });
    expect(accountRatioRow(globalAccountRatio(book({ a: '1', z: '0' })), T)).toMatchObject({
      longShortRatio: '0.0000',
      longAccount: '1.0000',
      shortAccount: '0.0000',
    });
    expect(accountRatioRow(globalAccountRatio(book({ a: '-1' })), T)).toMatchObject({
      longShortRatio: '0.0000',
      longAccount: '0.0000',
      shortAccount: '1.0000',
    });
  });
});

describe('topAccounts', () => {
  it('takes the top 20 % by absolute size, rounded up, largest first, ties by user id', () => {
    const ten = book({ a: '1', b: '-9', c: '3', d: '9', e: '-2', f: '4', g: '5', h: '6', i: '7', j: '-8' });
    expect(topAccounts(ten).map(([u]) => u)).toEqual(['b', 'd']);
    const eleven = new Map([...ten, ['k', m('-10')]]);
    expect(topAccounts(eleven).map(([u]) => u)).toEqual(['k', 'b', 'd']);
    expect(topAccounts(book({ only: '-0.001' })).map(([u]) => u)).toEqual(['only']);
    expect(topAccounts(book({ z: '0' }))).toEqual([]);
  });

  it('does not depend on the map order', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.integer({ min: -5, max: 5 })),
        fc.integer(),
        (sizes, seed) => {
          const entries = Object.entries(sizes).map(([u, s]): [string, Money] => [u, m(s)]);
          const shuffled = [...entries].sort(
            (x, y) => ((x[0].charCodeAt(0) * seed) % 7) - ((y[0].charCodeAt(0) * seed) % 7),
          );
          const held = entries.filter(([, s]) => !s.isZero()).length;
          const top = topAccounts(new Map(entries)).map(([u]) => u);
          expect(topAccounts(new Map(shuffled)).map(([u]) => u)).toEqual(top);
          expect(top).toHaveLength(Math.ceil(held / 5));
        },
      ),
    );
  });
});

describe('top-trader ratios', () => {
  const positions = book({
    whale: '50',
    shark: '-30',
    seal: '-20',
    fish1: '1',
    fish2: '1',
    fish3: '1',
    fish4: '-1',
    fish5: '1',
    fish6: '1',
    fish7: '1',
    fish8: '1',
    fish9: '1',
    fish10: '1',
    fish11: '1',
  });

  it('counts the top accounts once each for the account ratio', () => {
    // 14 accounts: the top 3 are whale (long), shark and seal (short).
    expect(accountRatioRow(topTraderAccountRatio(positions), T)).toMatchObject({
      longAccount: '0.3333',
      shortAccount: '0.6667',
      longShortRatio: '0.5000',
    });
    expect(accountRatioRow(globalAccountRatio(positions), T).longAccount).toBe('0.7857'); // 11 of 14
  });

  it('weighs the top accounts by size for the position ratio', () => {
    expect(positionRatioRow(topTraderPositionRatio(positions), T)).toEqual({
      longShortRatio: '1.0000',
      longPosition: '0.5000',
      shortPosition: '0.5000',
      timestamp: String(T),
    });
    // 6 accounts, top 2: a, then the 1-lot accounts tie and b ranks first by user id.
    const tie = (b: string, c: string) => book({ a: '3', b, c, d: '1', e: '1', f: '1' });
    expect(positionRatioRow(topTraderPositionRatio(tie('-1', '1')), T)).toMatchObject({
      longShortRatio: '3.0000',
      longPosition: '0.7500',
      shortPosition: '0.2500',
    });
    expect(positionRatioRow(topTraderPositionRatio(tie('1', '-1')), T)).toMatchObject({
      longShortRatio: '0.0000', // nothing short among the top: ratio 0 by definition
      longPosition: '1.0000',
      shortPosition: '0.0000',
    });
    expect(positionRatioRow(topTraderPositionRatio(book({})), T)).toMatchObject({
      longPosition: '0.0000',
      shortPosition: '0.0000',
    });
  });
});

describe('SymbolPositions', () => {
  it('moves maker and taker by the trade quantity and drops closed accounts', () => {
    const p = new SymbolPositions();
    p.applyTrade(m('2'), { user: 'mk', side: 'SELL' }, { user: 'tk', side: 'BUY' });
    p.applyTrade(m('0.5'), { user: 'mk2', side: 'BUY' }, { user: 'tk', side: 'SELL' });
    expect([...p.positions].map(([u, s]) => [u, s.toFixed()])).toEqual([
      ['mk', '-2'],
      ['tk', '1.5'],
      ['mk2', '0.5'],
    ]);
    expect(p.applyFill('mk', 'BUY', m('2')).toFixed()).toBe('0');
    expect(p.positions.has('mk')).toBe(false);
    expect(p.size('mk').toFixed()).toBe('0');
  });

  it('leaves a self-trade without effect and resumes from stored sizes', () => {
    const p = new SymbolPositions([
      ['a', m('1')],
      ['b', m('0')],
    ]);
    p.applyTrade(m('3'), { user: 'a', side: 'BUY' }, { user: 'a', side: 'SELL' });
    expect([...p.positions].map(([u, s]) => [u, s.toFixed()])).toEqual([['a', '1']]);
  });

  it('always nets to zero across accounts', () => {
    const user = fc.constantFrom('a', 'b', 'c', 'd');
    const side = fc.constantFrom('BUY' as const, 'SELL' as const);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), user, user, side)), (trades) => {
        const p = new SymbolPositions();
        for (const [lots, maker, taker, takerSide] of trades) {
          const makerSide = takerSide === 'BUY' ? 'SELL' : 'BUY';
          p.applyTrade(m(lots).div(1000), { user: maker, side: makerSide }, { user: taker, side: takerSide });
        }
        const net = [...p.positions.values()].reduce((a, s) => a.plus(s), m(0));
        expect(net.toFixed()).toBe('0');
        for (const s of p.positions.values()) expect(s.isZero()).toBe(false);
      }),
    );
  });
});
