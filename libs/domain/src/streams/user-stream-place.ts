/**
 * Where a user data event sits on the log: every event of one account comes from one partition of
 * the account events topic (keyed by user), so its offset orders it. One account event can give
 * two stream events (its own, e.g. an order's ORDER_TRADE_UPDATE, and the input's closing
 * ACCOUNT_UPDATE), told apart by `sub`. `groupStart` is the offset of the first event of the input the event came from:
 * a replay starts there to render the input whole, as the live feed did.
 */
export interface UserStreamPlace {
  partition: number;
  groupStart: bigint;
  offset: bigint;
  /** 0: the account event's own (ORDER_TRADE_UPDATE, ALGO_UPDATE, …); 1: the input's closing ACCOUNT_UPDATE. */
  sub: 0 | 1;
}

/** True when `a` comes after `b` on the log (same partition: one account's events). */
export function placeAfter(a: UserStreamPlace, b: UserStreamPlace): boolean {
  return a.offset > b.offset || (a.offset === b.offset && a.sub > b.sub);
}

/** The place of everything before `endOffset` having been delivered (a key's first position). */
export function placeBefore(partition: number, endOffset: bigint): UserStreamPlace {
  return { partition, groupStart: endOffset, offset: endOffset - 1n, sub: 1 };
}

/** The hot-store form: `partition:groupStart:offset:sub`. */
export function encodePlace(p: UserStreamPlace): string {
  return `${p.partition}:${p.groupStart}:${p.offset}:${p.sub}`;
}

/** The place of its hot-store form; undefined for anything else. */
export function decodePlace(text: string | undefined): UserStreamPlace | undefined {
  const m = /^(\d+):(-?\d+):(-?\d+):([01])$/.exec(text ?? '');
  if (!m) return undefined;
  return {
    partition: Number(m[1]),
    groupStart: BigInt(m[2]!),
    offset: BigInt(m[3]!),
    sub: m[4] === '1' ? 1 : 0,
  };
}

/**
 * The offsets a client whose last event was at `last` missed, with `endOffset` the partition's end:
 * after an input's closing event, from the next offset; after one of its account events, from the
 * input's start (re-rendered whole, its delivered events dropped); up to the end;
 * undefined when nothing after `last` is on the log yet.
 */
export function missedRange(
  last: UserStreamPlace,
  endOffset: bigint,
): { from: bigint; to: bigint } | undefined {
  const next = last.sub === 1 ? last.offset + 1n : last.offset;
  if (next >= endOffset) return undefined;
  return { from: last.sub === 1 ? next : last.groupStart, to: endOffset };
}
