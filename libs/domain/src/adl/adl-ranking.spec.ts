import { adlQuantiles, deleveragePlan, rankForAdl, type AdlPosition } from './adl-ranking';

const A = '0x' + 'a'.repeat(40);
const B = '0x' + 'b'.repeat(40);
const C = '0x' + 'c'.repeat(40);
const D = '0x' + 'd'.repeat(40);
const E = '0x' + 'e'.repeat(40);

describe('rankForAdl', () => {
  it('orders by score descending, then user address, unscored last', () => {
    const ranked = rankForAdl([
      { user: D, lots: 1 },
      { user: C, lots: 2, score: '0.5' },
      { user: B, lots: 3, score: '-1' },
      { user: A, lots: 4 },
      { user: E, lots: 5, score: '0.5' },
      { user: '0x' + 'f'.repeat(40), lots: 6, score: '10' },
    ]);
    expect(ranked.map((p) => p.user)).toEqual(['0x' + 'f'.repeat(40), C, E, B, A, D]);
  });

  it('compares scores as decimals, not strings', () => {
    const ranked = rankForAdl([
      { user: A, lots: 1, score: '9' },
      { user: B, lots: 1, score: '10' },
      { user: C, lots: 1, score: '-10' },
      { user: D, lots: 1, score: '-9' },
    ]);
    expect(ranked.map((p) => p.user)).toEqual([B, A, D, C]);
  });

  it('leaves out empty positions and treats a malformed score as none', () => {
    const ranked = rankForAdl([
      { user: A, lots: 0, score: '5' },
      { user: B, lots: 2, score: 'x' },
      { user: C, lots: 1, score: '0' },
    ]);
    expect(ranked.map((p) => p.user)).toEqual([C, B]);
  });
});

describe('adlQuantiles', () => {
  it('gives 5 to the first fifth down to 1 for the last', () => {
    const ps: AdlPosition[] = Array.from({ length: 10 }, (_, i) => ({
      user: '0x' + String(i).repeat(40),
      lots: 1,
    }));
    expect(adlQuantiles(ps).map(([, q]) => q)).toEqual([5, 5, 4, 4, 3, 3, 2, 2, 1, 1]);
  });

  it('gives 5 to a lone position and spreads small queues', () => {
    expect(adlQuantiles([{ user: A, lots: 1 }])).toEqual([[A, 5]]);
    expect(
      adlQuantiles([
        { user: A, lots: 1 },
        { user: B, lots: 1 },
      ]),
    ).toEqual([
      [A, 5],
      [B, 3],
    ]);
    expect(adlQuantiles([1, 2, 3].map((i) => ({ user: `${i}`, lots: 1 }))).map(([, q]) => q)).toEqual([
      5, 4, 2,
    ]);
  });

  it('is empty for no positions', () => {
    expect(adlQuantiles([])).toEqual([]);
  });
});

describe('deleveragePlan', () => {
  const ranked = [
    { user: A, lots: 3 },
    { user: B, lots: 5 },
    { user: C, lots: 2 },
  ];

  it('closes down the queue, whole positions first, the last one partly', () => {
    expect(deleveragePlan(ranked, 6)).toEqual([
      { user: A, lots: 3 },
      { user: B, lots: 3 },
    ]);
    expect(deleveragePlan(ranked, 3)).toEqual([{ user: A, lots: 3 }]);
    expect(deleveragePlan(ranked, 1)).toEqual([{ user: A, lots: 1 }]);
  });

  it('covers at most what the side holds', () => {
    expect(deleveragePlan(ranked, 50)).toEqual(ranked);
  });

  it('is empty for nothing to cover', () => {
    expect(deleveragePlan(ranked, 0)).toEqual([]);
    expect(deleveragePlan([], 4)).toEqual([]);
  });
});
