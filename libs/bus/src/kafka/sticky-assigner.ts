import { AssignerProtocol, type Assignment, type PartitionAssigner } from 'kafkajs';

/**
 * A member's view for the assignment: its id and the partitions it owns now (what it sent in its
 * JoinGroup metadata).
 */
export interface StickyMember {
  id: string;
  owned: Assignment;
}

/**
 * Balanced and sticky: every member keeps what it owns, up to its fair share (partitions / members,
 * the remainder going to the members that own the most already), and only the rest moves, to the
 * members below their share. A dead member's partitions go to the survivors and nothing else moves;
 * a new member takes its share from the members above theirs. kafkajs's round robin instead deals
 * every partition anew on each rebalance, so a healthy shard could lose a partition (snapshot, then
 * the new owner restores and replays) whenever any member comes or goes.
 *
 * Pure and deterministic (members by id, partitions by number): every leader computes the same.
 * A partition two members claim (one was dropped from the group and came back) goes to the first
 * by id; its state is f(snapshot, log) either way.
 */
export function stickyAssignment(
  members: readonly StickyMember[],
  partitions: Readonly<Record<string, readonly number[]>>,
): Map<string, Assignment> {
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out = new Map<string, Assignment>(sorted.map((m) => [m.id, {}]));
  if (!sorted.length) return out;
  for (const topic of Object.keys(partitions).sort()) {
    const all = [...new Set(partitions[topic])].sort((a, b) => a - b);
    const exists = new Set(all);
    const claimed = new Set<number>();
    const keep = new Map<string, number[]>();
    for (const m of sorted) {
      const mine = [...new Set(m.owned[topic] ?? [])]
        .filter((p) => exists.has(p) && !claimed.has(p))
        .sort((a, b) => a - b);
      for (const p of mine) claimed.add(p);
      keep.set(m.id, mine);
    }
    // Shares: floor(n/m) each; the remainder to the members owning the most (ties by id).
    const base = Math.floor(all.length / sorted.length);
    let extra = all.length % sorted.length;
    const quota = new Map<string, number>();
    const byOwned = [...sorted].sort((a, b) => keep.get(b.id)!.length - keep.get(a.id)!.length);
    for (const m of byOwned) quota.set(m.id, base + (extra-- > 0 ? 1 : 0));
    const free: number[] = all.filter((p) => !claimed.has(p));
    for (const m of sorted) {
      const mine = keep.get(m.id)!;
      const q = quota.get(m.id)!;
      if (mine.length > q) free.push(...mine.splice(q));
    }
    free.sort((a, b) => a - b);
    for (const m of sorted) {
      const mine = keep.get(m.id)!;
      const q = quota.get(m.id)!;
      while (mine.length < q && free.length) mine.push(free.shift()!);
      mine.sort((a, b) => a - b);
      if (mine.length) out.get(m.id)![topic] = mine;
    }
  }
  return out;
}

export const STICKY_ASSIGNER_NAME = 'PerpStickyAssigner';

/**
 * The kafkajs assigner over `stickyAssignment`. `owned` is read on every join: the member's current
 * partitions travel in its JoinGroup metadata (userData, JSON), so the leader knows who owns what.
 */
export function stickyAssigner(owned: () => Assignment, leaderDelayMs = 0): PartitionAssigner {
  return ({ cluster }) => ({
    name: STICKY_ASSIGNER_NAME,
    version: 0,
    async assign({ members, topics }) {
      // Alone (a survivor taking over a dead member's partitions), there is no follower to wait for.
      if (leaderDelayMs > 0 && members.length > 1) await new Promise((r) => setTimeout(r, leaderDelayMs));
      const list = members.map(({ memberId, memberMetadata }) => ({
        id: memberId,
        owned: decodeOwned(memberMetadata),
      }));
      const partitions: Record<string, number[]> = {};
      for (const topic of topics)
        partitions[topic] = cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId);
      const result = stickyAssignment(list, partitions);
      return [...result].map(([memberId, assignment]) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment,
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name: STICKY_ASSIGNER_NAME,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 0,
          topics,
          userData: Buffer.from(JSON.stringify(owned())),
        }),
      };
    },
  });
}

/** A member's claims; nothing when its metadata is not ours or not readable. */
function decodeOwned(metadata: Buffer): Assignment {
  try {
    const decoded = AssignerProtocol.MemberMetadata.decode(metadata);
    if (!decoded?.userData?.length) return {};
    const parsed: unknown = JSON.parse(decoded.userData.toString('utf8'));
    if (!parsed || typeof parsed !== 'object') return {};
    const out: Assignment = {};
    for (const [topic, list] of Object.entries(parsed as Record<string, unknown>))
      if (Array.isArray(list)) out[topic] = list.filter((p): p is number => Number.isSafeInteger(p));
    return out;
  } catch {
    return {};
  }
}
