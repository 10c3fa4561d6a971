import Broker from 'kafkajs/src/broker';

/**
 * Makes one kafkajs fetch return what a broker would: every record batch of a partition up to its
 * high watermark (within the request's byte budget), not only the first; and backs idle fetchers
 * off (below).
 *
 * The librdkafka mock cluster answers a Fetch with a single record batch per partition (one produce
 * request's worth), however many follow. A consumer then gets one producer's turn per round trip,
 * so a batched turn can never take the backlog that piled up meanwhile: on the mock the cluster
 * ran at one message per partition per round trip, and a replay at a few dozen inputs per second.
 * Here a partition whose answer stops before its high watermark is fetched again from where it
 * stopped, without waiting (maxWaitTime 0), and the messages are appended to the same answer, so
 * kafkajs sees one larger batch. A real broker fills the answer itself: the follow-up happens only
 * when the byte budget cut it, and is bounded.
 */
const MAX_FOLLOW_UPS = 16;

/**
 * Idle backoff: a fetcher whose fetches have come back empty `IDLE_ROUNDS` times in a row doubles
 * its wait with each further empty one, up to `IDLE_WAIT_CAP_MS`, and is back at the configured
 * wait after its first non-empty answer. On the mock a short wait is each idle hop's latency, but
 * every fetcher (one per consumer per broker: over a hundred in the cluster) polls at that rate:
 * at 10 ms the cluster at rest used 1.8 cores of 2. A consumer whose messages come a few waits
 * apart (an order path's partitions at a few hundred orders a second) keeps the short wait: backing
 * off from the first empty answer made their hops wait 20 to 80 ms; only the first message after
 * a quiet spell can wait up to the cap.
 */
const IDLE_ROUNDS = 16;
const IDLE_WAIT_CAP_MS = 100;

/** The wait of a fetch after `emptyRounds` empty answers in a row, for a configured `wait`. */
export function idleWait(wait: number, emptyRounds: number): number {
  if (emptyRounds < IDLE_ROUNDS || wait >= IDLE_WAIT_CAP_MS) return wait;
  return Math.min(IDLE_WAIT_CAP_MS, wait * 2 ** Math.min(emptyRounds - IDLE_ROUNDS + 1, 10));
}

type Pending = { topic: string; partition: number; next: bigint; part: Broker.FetchPartitionResponse };

let installed = false;
/** Consecutive empty fetches, per broker connection and partition set. */
const emptyRounds = new WeakMap<Broker, Map<string, number>>();

function partitionSet(request: Broker.FetchRequest): string {
  return request.topics.map((t) => `${t.topic}:${t.partitions.map((p) => p.partition).join(',')}`).join('|');
}

/** Patches kafkajs's Broker.fetch for every client of this process (idempotent). */
export function coalesceFetches(): void {
  if (installed) return;
  installed = true;
  const fetchOnce = Broker.prototype.fetch;
  Broker.prototype.fetch = async function (this: Broker, request: Broker.FetchRequest) {
    let rounds = emptyRounds.get(this);
    if (!rounds) emptyRounds.set(this, (rounds = new Map()));
    const set = partitionSet(request);
    const idle = rounds.get(set) ?? 0;
    const wait = request.maxWaitTime ?? 5_000;
    const longer = idleWait(wait, idle);
    const response = await fetchOnce.call(
      this,
      longer === wait ? request : { ...request, maxWaitTime: longer },
    );
    const empty = response.responses.every((t) => t.partitions.every((p) => p.messages.length === 0));
    if (empty) rounds.set(set, idle + 1);
    else rounds.delete(set);
    const perPartitionMax = new Map<string, number>();
    for (const t of request.topics)
      for (const p of t.partitions) perPartitionMax.set(`${t.topic}\u0000${p.partition}`, p.maxBytes);
    const unfinished = (topic: string, part: Broker.FetchPartitionResponse): Pending[] => {
      const last = part.messages[part.messages.length - 1];
      if (part.errorCode !== 0 || !last) return [];
      const next = BigInt(last.offset) + 1n;
      const max = perPartitionMax.get(`${topic}\u0000${part.partition}`) ?? Infinity;
      return next < BigInt(part.highWatermark) && bytesOf(part.messages) < max
        ? [{ topic, partition: part.partition, next, part }]
        : [];
    };
    let budget = request.maxBytes ?? 10_485_760;
    for (const t of response.responses) for (const p of t.partitions) budget -= bytesOf(p.messages);
    let pending = response.responses.flatMap((t) => t.partitions.flatMap((p) => unfinished(t.topicName, p)));
    for (let round = 0; pending.length && budget > 0 && round < MAX_FOLLOW_UPS; round++) {
      const byTopic = new Map<string, Broker.FetchPartitionRequest[]>();
      for (const p of pending) {
        const list = byTopic.get(p.topic) ?? [];
        byTopic.set(p.topic, list);
        list.push({
          partition: p.partition,
          fetchOffset: p.next.toString(),
          maxBytes: perPartitionMax.get(`${p.topic}\u0000${p.partition}`) ?? 1_048_576,
        });
      }
      const more = await fetchOnce.call(this, {
        ...request,
        maxWaitTime: 0,
        maxBytes: budget,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      });
      const next: Pending[] = [];
      for (const t of more.responses)
        for (const got of t.partitions) {
          const p = pending.find((x) => x.topic === t.topicName && x.partition === got.partition);
          if (!p || got.errorCode !== 0) continue;
          // A compressed record batch may start before the offset asked for.
          const fresh = got.messages.filter((m) => BigInt(m.offset) >= p.next);
          if (!fresh.length) continue;
          budget -= bytesOf(fresh);
          for (const m of fresh) p.part.messages.push(m);
          p.part.highWatermark = got.highWatermark;
          if (got.lastStableOffset !== undefined) p.part.lastStableOffset = got.lastStableOffset;
          next.push(...unfinished(p.topic, p.part));
        }
      pending = next;
    }
    return response;
  };
}

function bytesOf(messages: readonly Broker.FetchedMessage[]): number {
  let n = 0;
  for (const m of messages) n += (m.key?.length ?? 0) + (m.value?.length ?? 0) + 64;
  return n;
}
