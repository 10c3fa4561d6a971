import { Column, Entity, PrimaryColumn } from 'typeorm';
import { offsetTransformer } from '../columns';

export type SnapshotEncoding = 'identity' | 'gzip';

/**
 * A stage's state as of an input offset: state = f(snapshot, offset) + replay of what follows.
 * Keyed by the input partition the shard owns; several are kept so a bad latest one can be skipped.
 * Any shard's (engine and risk alike); the table keeps the name it was created with.
 */
@Entity({ name: 'engine_snapshots' })
export class ShardSnapshotEntity {
  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'int' })
  partition!: number;

  /** Offset of the last input applied to `state` (int64 as a decimal string). */
  @PrimaryColumn({ type: 'bigint', transformer: offsetTransformer })
  offset!: string;

  /** Format version of `state`, so a reader can refuse or convert an old one. */
  @Column({ type: 'int', default: 1 })
  version!: number;

  @Column({ type: 'bytea' })
  state!: Buffer;

  /** How `state` is stored: as given, or gzipped (ShardSnapshotRepository decodes it on reading). */
  @Column({ name: 'state_encoding', type: 'text', default: 'identity' })
  stateEncoding!: SnapshotEncoding;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
