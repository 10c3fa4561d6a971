import { v5 as uuidv5 } from 'uuid';

/** Fixed namespace of this exchange's name-based UUIDs (never change it: ids are stored). */
const NAMESPACE = '3d0f5c1e-8a51-4c55-9f0e-2b6f6a1d7e42';

/**
 * A UUID derived from a name (v5): the same input always gives the same id, so a replayed event
 * (its id derived from partition, offset and index) maps to the same row and is dropped.
 */
export function stableUuid(name: string): string {
  return uuidv5(name, NAMESPACE);
}

/** A user's id is a function of the wallet address: projections keyed by address need no lookup. */
export function userIdForAddress(address: string): string {
  return stableUuid(`user:${address.toLowerCase()}`);
}
