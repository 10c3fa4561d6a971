import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { EntityManager } from 'typeorm';
import { ShardSnapshotEntity } from '../entities/shard-snapshot.entity';
import { BaseRepository } from './base.repository';
import { type OffsetMark, ProcessedOffsetRepository } from './processed-offset.repository';

export interface NewSnapshot {
  topic: string;
  partition: number;
  offset: string;
  state: Buffer;
  version?: number;
}

const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);

/**
 * States from this size on are stored gzipped (level 1, on libuv's thread pool): a busy risk
 * partition's 580 KB of JSON becomes about 56 KB, and the embedded database writes it in a third
 * of the time. Smaller ones are stored as given, readable as they are.
 */
export const SNAPSHOT_GZIP_FROM_BYTES = 4096;

export class ShardSnapshotRepository extends BaseRepository<ShardSnapshotEntity> {
  constructor(manager: EntityManager) {
    super(manager, ShardSnapshotEntity);
  }

  /**
   * Stores a snapshot and, in the same transaction, the marks of the inputs it includes: after a
   * crash, state and marks are restored together, never one without the other.
   */
  async save(snapshot: NewSnapshot, marks: OffsetMark[] = []): Promise<void> {
    const gzip = snapshot.state.length >= SNAPSHOT_GZIP_FROM_BYTES;
    const state = gzip ? await gzipped(snapshot.state, { level: 1 }) : snapshot.state;
    await this.manager.transaction(async (m) => {
      await m
        .createQueryBuilder()
        .insert()
        .into(ShardSnapshotEntity)
        .values({
          ...snapshot,
          state,
          stateEncoding: gzip ? 'gzip' : 'identity',
          version: snapshot.version ?? 1,
        })
        .orUpdate(['state', 'state_encoding', 'version', 'created_at'], ['topic', 'partition', 'offset'])
        .execute();
      const offsets = new ProcessedOffsetRepository(m);
      for (const mark of marks) await offsets.advance(mark);
    });
  }

  /** The snapshot at the highest offset of a partition, its state as it was saved. */
  async latest(topic: string, partition: number): Promise<ShardSnapshotEntity | undefined> {
    const snap = await this.repo.findOne({ where: { topic, partition }, order: { offset: 'DESC' } });
    if (snap?.stateEncoding === 'gzip') {
      snap.state = await gunzipped(snap.state);
      snap.stateEncoding = 'identity';
    }
    return snap ?? undefined;
  }

  /** Deletes all but the newest `keep` snapshots of a partition; returns how many went. */
  async prune(topic: string, partition: number, keep: number): Promise<number> {
    if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be >= 1: ${keep}`);
    // A CTE: TypeORM returns [rows, count] for a bare DELETE but plain rows for a SELECT.
    const [{ n }]: { n: number }[] = await this.manager.query(
      `WITH gone AS (
         DELETE FROM ${this.table()} s WHERE s.topic = $1 AND s."partition" = $2 AND s."offset" < (
           SELECT "offset" FROM ${this.table()} WHERE topic = $1 AND "partition" = $2
           ORDER BY "offset" DESC OFFSET $3 LIMIT 1)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [topic, partition, keep - 1],
    );
    return n;
  }
}
