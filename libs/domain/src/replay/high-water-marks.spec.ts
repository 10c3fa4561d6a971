import { HighWaterMarks } from './high-water-marks';

describe('HighWaterMarks', () => {
  it('takes anything from a partition it has no mark for', () => {
    const marks = new HighWaterMarks();
    expect(marks.isNew(0, 0n, 0)).toBe(true);
    expect(marks.get(0)).toBeUndefined();
  });

  it('refuses the marked place and everything before it, takes what follows', () => {
    const marks = new HighWaterMarks();
    marks.mark(1, 10n, 2);
    expect(marks.isNew(1, 10n, 2)).toBe(false);
    expect(marks.isNew(1, 10n, 1)).toBe(false);
    expect(marks.isNew(1, 9n, 5)).toBe(false);
    expect(marks.isNew(1, 10n, 3)).toBe(true);
    expect(marks.isNew(1, 11n, 0)).toBe(true);
  });

  it('orders the outputs of one offset by index, and an index left out is 0', () => {
    const marks = new HighWaterMarks();
    marks.mark(0, 5n);
    expect(marks.get(0)).toEqual({ offset: 5n, index: 0 });
    expect(marks.isNew(0, 5n)).toBe(false);
    expect(marks.isNew(0, 5n, 1)).toBe(true);
  });

  it('compares offsets as numbers beyond 2^53', () => {
    const marks = new HighWaterMarks();
    marks.mark(0, 9007199254740993n, 0);
    expect(marks.isNew(0, 9007199254740992n, 9)).toBe(false);
    expect(marks.isNew(0, 9007199254740994n, 0)).toBe(true);
  });

  it('keeps partitions apart', () => {
    const marks = new HighWaterMarks();
    marks.mark(0, 100n, 0);
    expect(marks.isNew(1, 1n, 0)).toBe(true);
    marks.mark(1, 1n, 0);
    expect(marks.isNew(0, 50n, 0)).toBe(false);
    expect(marks.isNew(1, 2n, 0)).toBe(true);
    expect(marks.size).toBe(2);
  });

  it('a later mark replaces the earlier one', () => {
    const marks = new HighWaterMarks();
    marks.mark(3, 7n, 1);
    marks.mark(3, 8n, 0);
    expect(marks.isNew(3, 7n, 2)).toBe(false);
    expect(marks.get(3)).toEqual({ offset: 8n, index: 0 });
  });

  it('serializes to [partition, offset, index] tuples and back', () => {
    const marks = new HighWaterMarks();
    marks.mark(2, 42n, 1);
    marks.mark(0, 18446744073709551615n, 7);
    const state = marks.toState();
    expect(state).toEqual([
      [2, '42', 1],
      [0, '18446744073709551615', 7],
    ]);
    const back = HighWaterMarks.fromState(JSON.parse(JSON.stringify(state)));
    expect(back.toState()).toEqual(state);
    expect(back.isNew(0, 18446744073709551615n, 7)).toBe(false);
    expect(back.isNew(2, 42n, 2)).toBe(true);
  });

  it('restores tuples without an index as index 0', () => {
    const back = HighWaterMarks.fromState([[5, '42']]);
    expect(back.get(5)).toEqual({ offset: 42n, index: 0 });
  });
});
