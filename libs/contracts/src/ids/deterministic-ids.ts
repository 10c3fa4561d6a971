import { parse as parseUuid, v5 as uuidv5 } from 'uuid';

/**
 * Every id derived from something deterministic: output ids from log places, UUIDs (v5) from
 * names. A replay derives the same ids, so consumers dedupe on them. Ids are persisted: never
 * change a namespace or a name's shape (the spec pins values).
 */

// Namespaces as bytes: uuid parses a namespace given as text on every call (twice).
/** Namespace of the UUIDs derived from message ids (trade and income ids). */
const MESSAGE_NAMESPACE = parseUuid('8f6c2a7e-4b1d-5e39-a0c4-71d2e9b35f18');
/** Namespace of the UUIDs of named rows (users, and rows named after the event they come from). */
const NAME_NAMESPACE = parseUuid('3d0f5c1e-8a51-4c55-9f0e-2b6f6a1d7e42');
/** Most user ids remembered: projections derive one per row, from a few active addresses. */
const USER_IDS_KEPT = 10_000;
const userIds = new Map<string, string>();

/** A deterministic UUID (v5) from an event id: a replay gives the same record the same id. */
export function deterministicUuid(name: string): string {
  return uuidv5(name, MESSAGE_NAMESPACE);
}

/**
 * A UUID derived from a name (v5): the same input always gives the same id, so a replayed event
 * (its id derived from partition, offset and index) maps to the same row and is dropped.
 */
export function stableUuid(name: string): string {
  return uuidv5(name, NAME_NAMESPACE);
}

/** A user's id is a function of the wallet address: projections keyed by address need no lookup. */
export function userIdForAddress(address: string): string {
  let id = userIds.get(address);
  if (id === undefined) {
    id = stableUuid(`user:${address.toLowerCase()}`);
    if (userIds.size >= USER_IDS_KEPT) userIds.clear();
    userIds.set(address, id);
  }
  return id;
}

/** The id of the `index`-th output of the input at (topic, partition, offset). */
export function outputId(topic: string, partition: number, offset: string, index: number): string {
  return `${topic}/${partition}/${offset}/${index}`;
}

/**
 * The input place an output id names (`<topic>/<partition>/<offset>/<index>`, see outputId). An
 * engine event's place is that of the engine command behind it: a replay re-emits the event with
 * the same place at a new offset of the events log, so consumers dedupe on places, never on offsets.
 */
export function parseOutputId(id: string): { partition: number; offset: string; index: number } | undefined {
  const parts = id.split('/');
  if (parts.length < 4) return undefined;
  const [partition, offset, index] = parts.slice(-3);
  if (!/^\d+$/.test(partition) || !/^\d+$/.test(offset) || !/^\d+$/.test(index)) return undefined;
  return { partition: Number(partition), offset, index: Number(index) };
}
