import {
  deterministicUuid,
  outputId,
  parseOutputId,
  stableUuid,
  userIdForAddress,
} from './deterministic-ids';

// Values computed by the two helpers this module replaced (contracts' `deterministicUuid`,
// persistence's `stableUuid`/`userIdForAddress`). They are stored and deduped on: they never change.
describe('deterministic ids', () => {
  it.each([
    ['engine.commands/3/42/0', '5c3d8d19-e39e-54b6-bc1e-364557d325d2'],
    ['engine.commands/0/18446744073709551615/7', '283bbe6b-0037-5f81-837d-88ee7e4167a9'],
    ['perp.engine.commands.v1/3/42/1', '1bbe47a0-40af-58bc-8091-b0bc3ae90c76'],
    ['perp.risk.commands.v1/0/7/2', 'bffd2760-19fe-53da-a4b2-6140c3a58e55'],
  ])('deterministicUuid(%p) is %p', (name, uuid) => {
    expect(deterministicUuid(name)).toBe(uuid);
  });

  it.each([
    ['income-1', '4de0c912-258b-5991-8a67-c8142ecd0fe6'],
    ['order-1', '24faa9d2-4983-55c9-b791-2964c5960fd1'],
  ])('stableUuid(%p) is %p', (name, uuid) => {
    expect(stableUuid(name)).toBe(uuid);
  });

  it('derives a user id from the address, whatever its case', () => {
    const id = 'fe3987ee-9d9f-537a-bc4b-99cc9b583bff';
    expect(userIdForAddress('0xABCdef0123456789abcdef0123456789ABCDEF01')).toBe(id);
    expect(userIdForAddress('0xabcdef0123456789abcdef0123456789abcdef01')).toBe(id);
    expect(stableUuid('user:0xabcdef0123456789abcdef0123456789abcdef01')).toBe(id);
    // Asked again (remembered) and after many other addresses (the memory cleared): the same id.
    expect(userIdForAddress('0xABCdef0123456789abcdef0123456789ABCDEF01')).toBe(id);
    for (let i = 0; i < 10_001; i++) userIdForAddress(`0x${i.toString(16).padStart(40, '0')}`);
    expect(userIdForAddress('0xabcdef0123456789abcdef0123456789abcdef01')).toBe(id);
    expect(userIdForAddress(`0x${(7).toString(16).padStart(40, '0')}`)).toBe(
      stableUuid(`user:0x${(7).toString(16).padStart(40, '0')}`),
    );
  });

  it('keeps the two namespaces apart', () => {
    expect(deterministicUuid('order-1')).not.toBe(stableUuid('order-1'));
  });

  it('names an output by its input place and reads the place back', () => {
    const id = outputId('perp.engine.commands.v1', 3, '42', 1);
    expect(id).toBe('perp.engine.commands.v1/3/42/1');
    expect(parseOutputId(id)).toEqual({ partition: 3, offset: '42', index: 1 });
  });

  it.each(['', 'a/b/c', 'topic/x/1/0', 'topic/1/-1/0', 'topic/1/2/0.5'])(
    'parseOutputId(%p) names no place',
    (id) => {
      expect(parseOutputId(id)).toBeUndefined();
    },
  );
});
