import { textFrame } from './stream-connection';

describe('textFrame (RFC 6455 server text frame)', () => {
  it.each([
    [0, [0x81, 0]],
    [125, [0x81, 125]],
    [126, [0x81, 126, 0, 126]],
    [65_535, [0x81, 126, 0xff, 0xff]],
    [65_536, [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]],
  ])('a %i-byte payload gets the shortest length encoding', (length, header) => {
    const text = 'x'.repeat(length);
    const frame = textFrame(text);
    expect([...frame.subarray(0, header.length)]).toEqual(header);
    expect(frame.subarray(header.length).toString()).toBe(text);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const frame = textFrame('USDⓈ');
    expect(frame[1]).toBe(Buffer.byteLength('USDⓈ'));
    expect(frame.subarray(2).toString()).toBe('USDⓈ');
  });
});
