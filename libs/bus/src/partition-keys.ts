import type { Bus } from './bus';

/**
 * One key per partition of `topic` (the partition of key i is `partitionFor(topic, key)`, with the
 * partition count the log has): what a stage publishes with to reach every partition, as a copy of
 * a mark or a market state each shard must see in its own input order. Found once per bus.
 */
export class PartitionKeys {
  private readonly found = new Map<string, Promise<string[]>>();

  constructor(
    private readonly bus: Bus,
    private readonly prefix: string,
  ) {}

  of(topic: string): Promise<string[]> {
    let keys = this.found.get(topic);
    if (!keys) {
      keys = this.search(topic);
      this.found.set(topic, keys);
      keys.catch(() => this.found.delete(topic));
    }
    return keys;
  }

  private async search(topic: string): Promise<string[]> {
    const n = (await this.bus.endOffsets(topic)).length;
    const keys = new Array<string>(n);
    let found = 0;
    for (let i = 0; found < n; i++) {
      const key = `${this.prefix}-${i}`;
      const p = this.bus.partitionFor(topic, key);
      if (keys[p] === undefined) {
        keys[p] = key;
        found++;
      }
    }
    return keys;
  }
}
