import type { Bus, BusMessage, PublishResult, TopicPartition } from '../bus';

/** What `busConformance` lends these tests: fresh topics and groups, and its wait. */
export interface ReaderConformanceKit {
  setup<K extends string>(...names: K[]): Promise<{ bus: Bus; topic: Record<K, string> }>;
  group(): string;
  eventually(what: string, condition: () => boolean): Promise<void>;
  timeoutMs: number;
  partitions: number;
}

/** Readers without a consumer group (`SubscribeOptions.assign`), in every adapter. */
export function readerConformance(k: ReaderConformanceKit): void {
  const { setup, group, eventually } = k;
  const everyPartition = (topic: string): TopicPartition[] =>
    Array.from({ length: k.partitions }, (_, partition) => ({ topic, partition }));
  const byPartition = (ms: readonly BusMessage<{ i: number }>[]) => {
    const out = new Map<number, number[]>();
    for (const m of ms) out.set(m.partition, [...(out.get(m.partition) ?? []), m.value.i]);
    return out;
  };

  it(
    'a reader without a group reads every partition from the start, and so does another of the same name',
    async () => {
      const { bus, topic } = await setup('markets');
      const sent: PublishResult[] = [];
      for (let i = 0; i < 12; i++) sent.push(await bus.publish(topic.markets, `m-${i}`, { i }));
      const name = group();
      const got: BusMessage<{ i: number }>[][] = [[], []];
      const readers = await Promise.all(
        got.map((into) =>
          bus.subscribe<{ i: number }>({
            groupId: name,
            topics: [topic.markets],
            assign: 'all',
            handler: (m) => void into.push(m),
          }),
        ),
      );
      await eventually('both readers read all 12', () => got.every((g) => g.length >= 12));
      const expected = new Map<number, number[]>();
      for (const [i, r] of sent.entries())
        expected.set(r.partition, [...(expected.get(r.partition) ?? []), i]);
      for (const [i, g] of got.entries()) {
        expect(g).toHaveLength(12);
        expect(byPartition(g)).toEqual(expected);
        expect(readers[i]!.assignment()).toEqual(expect.arrayContaining(everyPartition(topic.markets)));
        expect(readers[i]!.assignment()).toHaveLength(k.partitions);
      }
      // Live: what comes later reaches both.
      await bus.publish(topic.markets, 'm-late', { i: 12 });
      await eventually('both read the 13th', () => got.every((g) => g.length >= 13));
      expect(got.map((g) => g[12]!.value.i)).toEqual([12, 12]);
    },
    k.timeoutMs,
  );

  it(
    'a reader of one partition from the end gets only what is published there after it started',
    async () => {
      const { bus, topic } = await setup('replies');
      const mine = bus.partitionFor(topic.replies, 'gateway-a');
      const other = [...Array(40).keys()]
        .map((i) => `other-${i}`)
        .find((key) => bus.partitionFor(topic.replies, key) !== mine)!;
      await bus.publish(topic.replies, 'gateway-a', { i: 0 });
      await bus.publish(topic.replies, other, { i: 1 });
      const got: number[] = [];
      const assigned: TopicPartition[][] = [];
      const reader = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.replies],
        assign: [{ topic: topic.replies, partition: mine }],
        start: 'latest',
        onAssigned: (tps) => void assigned.push(tps),
        batchHandler: (ms) => void got.push(...ms.map((m) => m.value.i)),
      });
      expect(assigned).toEqual([[{ topic: topic.replies, partition: mine }]]);
      expect(reader.assignment()).toEqual([{ topic: topic.replies, partition: mine }]);
      await bus.publish(topic.replies, other, { i: 2 });
      await bus.publish(topic.replies, 'gateway-a', { i: 3 });
      await bus.publish(topic.replies, 'gateway-a', { i: 4 });
      await eventually('the two published after the start', () => got.length >= 2);
      await new Promise((r) => setTimeout(r, 200));
      expect(got).toEqual([3, 4]);
    },
    k.timeoutMs,
  );

  it(
    'a reader seeks in onAssigned, refuses commits and gets a failing message again, skipping nothing',
    async () => {
      const { bus, topic } = await setup('feed');
      const sent: PublishResult[] = [];
      for (let i = 0; i < 5; i++) sent.push(await bus.publish(topic.feed, 'BTCUSDT', { i }));
      const p = sent[0]!.partition;
      const seen: string[] = [];
      let failed = false;
      const reader = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.feed],
        assign: 'all',
        onAssigned: (tps, self) => {
          self.seek({ topic: topic.feed, partition: p, offset: sent[2]!.offset });
          seen.push(`assigned ${tps.length}`);
        },
        handler: (m) => {
          if (m.value.i === 3 && !failed) {
            failed = true;
            seen.push('3 failed');
            throw new Error('not yet');
          }
          seen.push(String(m.value.i));
        },
      });
      await eventually('2, 3 again and 4', () => seen.length >= 5);
      expect(seen).toEqual([`assigned ${k.partitions}`, '2', '3 failed', '3', '4']);
      await expect(reader.commit({ topic: topic.feed, partition: p, offset: '5' })).rejects.toThrow(
        /without a consumer group/,
      );
      expect(() => reader.commitLater({ topic: topic.feed, partition: p, offset: '5' })).toThrow(
        /without a consumer group/,
      );
      expect(reader.committedAtAssignment({ topic: topic.feed, partition: p })).toBeUndefined();
    },
    k.timeoutMs,
  );

  it(
    'a closed reader gets nothing more, and onRevoked hands back what it read',
    async () => {
      const { bus, topic } = await setup('book');
      const got: number[] = [];
      const revoked: TopicPartition[][] = [];
      const reader = await bus.subscribe<{ i: number }>({
        groupId: group(),
        topics: [topic.book],
        assign: 'all',
        onRevoked: (tps) => void revoked.push(tps),
        handler: (m) => void got.push(m.value.i),
      });
      await bus.publish(topic.book, 'ETHUSDT', { i: 1 });
      await eventually('the first', () => got.length >= 1);
      await reader.close();
      expect(revoked).toHaveLength(1);
      expect(revoked[0]).toEqual(expect.arrayContaining(everyPartition(topic.book)));
      await bus.publish(topic.book, 'ETHUSDT', { i: 2 });
      await new Promise((r) => setTimeout(r, 300));
      expect(got).toEqual([1]);
    },
    k.timeoutMs,
  );

  it(
    'refuses an assigned partition the topic does not have, or of a topic it does not name',
    async () => {
      const { bus, topic } = await setup('a', 'b');
      const reader = (assign: TopicPartition[]) =>
        bus.subscribe({ groupId: group(), topics: [topic.a], assign, handler: () => {} });
      await expect(reader([{ topic: topic.a, partition: k.partitions }])).rejects.toThrow(
        `${topic.a} has no partition ${k.partitions}`,
      );
      await expect(reader([{ topic: topic.b, partition: 0 }])).rejects.toThrow(/is not in topics/);
    },
    k.timeoutMs,
  );
}
