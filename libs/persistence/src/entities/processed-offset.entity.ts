import { Column, Entity, PrimaryColumn } from 'typeorm';
import { offsetTransformer } from '../columns';

/** High-water mark of one consumer on one source partition: inputs at or below it were applied. */
@Entity({ name: 'processed_offsets' })
export class ProcessedOffsetEntity {
  @PrimaryColumn({ type: 'text' })
  consumer!: string;

  @PrimaryColumn({ type: 'text' })
  topic!: string;

  @PrimaryColumn({ type: 'int' })
  partition!: number;

  @Column({ type: 'bigint', transformer: offsetTransformer })
  offset!: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
