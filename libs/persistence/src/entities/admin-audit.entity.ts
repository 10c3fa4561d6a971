import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One operator action, as submitted (the action itself is a command on the log). */
@Entity({ name: 'admin_audit' })
@Index('admin_audit_created_at_idx', ['createdAt'])
export class AdminAuditEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  payload!: object;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
