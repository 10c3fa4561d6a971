import { v5 as uuidv5 } from 'uuid';

/** Namespace of the UUIDs derived from message ids (never change it: trade ids are stored). */
const NAMESPACE = '8f6c2a7e-4b1d-5e39-a0c4-71d2e9b35f18';

/** A deterministic UUID (v5) from an event id: a replay gives the same record the same id. */
export function deterministicUuid(name: string): string {
  return uuidv5(name, NAMESPACE);
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
