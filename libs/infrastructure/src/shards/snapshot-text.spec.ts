import { SnapshotText } from './snapshot-text';

describe('SnapshotText', () => {
  it('is the UTF-8 of the parts joined, arrays bracketed and comma-separated', () => {
    const values = [{ a: 'é' }, { b: '𝄞 and \u2028' }, { c: [1, 2] }];
    const bytes = new SnapshotText()
      .add('{"x":')
      .addArray(values, (v) => JSON.stringify(v))
      .add(',"empty":')
      .addArray([], () => 'never called')
      .add(',"one":')
      .addArray(['"ü"'], (t) => t)
      .add('}')
      .toBuffer();
    const expected = JSON.stringify({ x: values, empty: [], one: ['ü'] });
    expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ x: values, empty: [], one: ['ü'] });
  });

  it('makes an empty buffer of nothing', () => {
    expect(new SnapshotText().toBuffer().length).toBe(0);
  });
});
