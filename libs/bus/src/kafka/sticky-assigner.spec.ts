import { AssignerProtocol } from 'kafkajs';
import { stickyAssigner, stickyAssignment, type StickyMember } from './sticky-assigner';

const T = 'perp.risk.commands.v1';
const EIGHT = { [T]: [0, 1, 2, 3, 4, 5, 6, 7] };
const of = (result: Map<string, Record<string, number[]>>, id: string) => result.get(id)![T] ?? [];

describe('stickyAssignment', () => {
  it('deals a fresh group evenly, every partition once', () => {
    const r = stickyAssignment(
      [
        { id: 'b', owned: {} },
        { id: 'a', owned: {} },
        { id: 'c', owned: {} },
      ],
      EIGHT,
    );
    const all = [...of(r, 'a'), ...of(r, 'b'), ...of(r, 'c')].sort();
    expect(all).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([of(r, 'a').length, of(r, 'b').length, of(r, 'c').length].sort()).toEqual([2, 3, 3]);
  });

  it('gives a dead member partitions to the survivor and moves nothing else', () => {
    // a owned 0-3, b (killed) owned 4-7: a keeps 0-3 and gains 4-7.
    const r = stickyAssignment([{ id: 'a', owned: { [T]: [0, 1, 2, 3] } }], EIGHT);
    expect(of(r, 'a')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps each survivor its partitions when one of three dies', () => {
    const r = stickyAssignment(
      [
        { id: 'a', owned: { [T]: [0, 3, 6] } },
        { id: 'c', owned: { [T]: [2, 5] } },
      ],
      EIGHT,
    );
    expect(of(r, 'a')).toEqual(expect.arrayContaining([0, 3, 6]));
    expect(of(r, 'c')).toEqual(expect.arrayContaining([2, 5]));
    expect([...of(r, 'a'), ...of(r, 'c')].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(of(r, 'a')).toHaveLength(4);
  });

  it('hands a joining member its share from the member over its own, and only that', () => {
    const r = stickyAssignment(
      [
        { id: 'z-new', owned: {} },
        { id: 'a', owned: EIGHT },
      ],
      EIGHT,
    );
    expect(of(r, 'a')).toEqual([0, 1, 2, 3]);
    expect(of(r, 'z-new')).toEqual([4, 5, 6, 7]);
  });

  it('gives a partition two members claim to one of them, and drops claims on unknown partitions', () => {
    const r = stickyAssignment(
      [
        { id: 'a', owned: { [T]: [0, 1, 9] } },
        { id: 'b', owned: { [T]: [1, 2] } },
      ],
      { [T]: [0, 1, 2, 3] },
    );
    expect(of(r, 'a')).toEqual([0, 1]);
    expect(of(r, 'b')).toEqual([2, 3]);
  });

  it('is the same whatever order the members come in', () => {
    const members: StickyMember[] = [
      { id: 'm1', owned: { [T]: [7, 1] } },
      { id: 'm2', owned: { [T]: [3] } },
      { id: 'm3', owned: {} },
    ];
    const a = stickyAssignment(members, EIGHT);
    const b = stickyAssignment([...members].reverse(), EIGHT);
    expect([...b].sort()).toEqual([...a].sort());
  });
});

describe('stickyAssigner (kafkajs protocol)', () => {
  it('sends the owned partitions in the join metadata and reads them back as the leader', async () => {
    const cluster = { findTopicPartitionMetadata: () => EIGHT[T].map((partitionId) => ({ partitionId })) };
    const make = (owned: Record<string, number[]>) =>
      stickyAssigner(() => owned)({ cluster: cluster as never, groupId: 'g', logger: undefined as never });
    const a = make({ [T]: [4, 5, 6, 7] });
    const b = make({});
    const result = await a.assign({
      members: [
        { memberId: 'a', memberMetadata: a.protocol({ topics: [T] }).metadata },
        { memberId: 'b', memberMetadata: b.protocol({ topics: [T] }).metadata },
        { memberId: 'c', memberMetadata: Buffer.from('not ours') },
      ],
      topics: [T],
    });
    const decoded = new Map(
      result.map((r) => [
        r.memberId,
        AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment,
      ]),
    );
    expect(decoded.get('a')![T]).toEqual([4, 5, 6]);
    expect([...decoded.get('b')![T]!, ...decoded.get('c')![T]!].sort()).toEqual([0, 1, 2, 3, 7]);
  });
});
