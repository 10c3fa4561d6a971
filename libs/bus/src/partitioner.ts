import murmur2 from 'kafkajs/src/producer/partitioners/default/murmur2';

export { murmur2 };

/** Kafka's default partition of a key: `toPositive(murmur2(utf8(key))) % partitions` (Java client, kafkajs). */
export function partitionOf(key: string, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

const CACHE_LIMIT = 65_536;

/**
 * partitionOf with a bounded memo: kafkajs's murmur2 does 64-bit Long arithmetic (~1 µs a key),
 * too slow for the memory bus's hot path, and keys (symbols, users) repeat.
 */
export class KeyPartitioner {
  private readonly cache = new Map<string, number>();

  constructor(readonly partitions: number) {
    if (!Number.isInteger(partitions) || partitions < 1) throw new Error(`bad partition count ${partitions}`);
  }

  partition(key: string): number {
    let p = this.cache.get(key);
    if (p === undefined) {
      p = partitionOf(key, this.partitions);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, p);
    }
    return p;
  }
}
