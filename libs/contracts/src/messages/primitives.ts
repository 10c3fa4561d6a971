import { z } from 'zod';

/** Decimal string as on the wire of every topic: plain notation, no exponent. */
export const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'decimal string');
export const symbol = z.string().regex(/^[A-Z0-9]{2,24}$/, 'canonical symbol');
export const address = z.string().regex(/^0x[0-9a-f]{40}$/, 'lowercase 0x address');
export const side = z.enum(['BUY', 'SELL']);
export const ms = z.number().int().nonnegative();

/**
 * Fields every message carries. `id` is deterministic (derived from the input partition, offset and
 * index that produced it), so a replay re-emits the same id and consumers drop it.
 */
export const envelope = {
  id: z.string().min(1),
  v: z.literal(1),
  time: ms,
};

/** A message of a union type without its envelope fields (what a producer fills in). */
export type MessageBody<T> = T extends unknown ? Omit<T, 'id' | 'v' | 'time'> : never;
