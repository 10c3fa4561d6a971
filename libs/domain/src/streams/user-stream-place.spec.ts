import {
  decodePlace,
  encodePlace,
  missedRange,
  placeAfter,
  placeBefore,
  type UserStreamPlace,
} from './index';

const at = (groupStart: number, offset: number, sub: 0 | 1): UserStreamPlace => ({
  partition: 2,
  groupStart: BigInt(groupStart),
  offset: BigInt(offset),
  sub,
});

describe('user stream places', () => {
  it('orders by offset, then the input-closing event after the account event', () => {
    expect(placeAfter(at(3, 5, 0), at(3, 4, 1))).toBe(true);
    expect(placeAfter(at(3, 5, 1), at(3, 5, 0))).toBe(true);
    expect(placeAfter(at(3, 5, 0), at(3, 5, 0))).toBe(false);
    expect(placeAfter(at(3, 4, 1), at(3, 5, 0))).toBe(false);
  });

  it('round-trips through the hot-store form and refuses anything else', () => {
    expect(decodePlace(encodePlace(at(3, 5, 1)))).toEqual(at(3, 5, 1));
    expect(decodePlace(encodePlace(placeBefore(2, 0n)))).toEqual(at(0, -1, 1));
    expect(decodePlace(undefined)).toBeUndefined();
    expect(decodePlace('2:3:5:2')).toBeUndefined();
    expect(decodePlace('x')).toBeUndefined();
  });

  it('missed range: from the start of the last input to the end, none when caught up', () => {
    // The input ran 3..6; the client saw its order update at 5: re-render 3.. and drop up to 5/0.
    expect(missedRange(at(3, 5, 0), 10n)).toEqual({ from: 3n, to: 10n });
    // It saw the input's closing ACCOUNT_UPDATE: the next input starts at 6.
    expect(missedRange(at(3, 5, 1), 10n)).toEqual({ from: 6n, to: 10n });
    expect(missedRange(at(9, 9, 1), 10n)).toBeUndefined();
    expect(missedRange(at(9, 9, 0), 10n)).toEqual({ from: 9n, to: 10n });
    expect(missedRange(placeBefore(2, 10n), 10n)).toBeUndefined();
    expect(missedRange(placeBefore(2, 10n), 12n)).toEqual({ from: 10n, to: 12n });
  });
});
