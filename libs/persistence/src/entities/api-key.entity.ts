import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { UserEntity } from './user.entity';

export type ApiKeyStatus = 'active' | 'disabled';

/** A FAPI key. The secret is stored only as ciphertext (libs/auth encrypts it). */
@Entity({ name: 'api_keys' })
@Index('api_keys_user_id_idx', ['userId'])
@Index('api_keys_user_chain_idx', ['userId', 'chain'])
@Unique('api_keys_api_key_key', ['apiKey'])
@Check('api_keys_status_check', `status IN ('active', 'disabled')`)
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' })
  user?: UserEntity;

  /** 64 hex chars, sent as X-MBX-APIKEY. */
  @Column({ name: 'api_key', type: 'text' })
  apiKey!: string;

  @Column({ name: 'secret_ciphertext', type: 'text' })
  secretCiphertext!: string;

  /** The chain deployment the key belongs to (null: made before keys had one, not yet claimed). */
  @Column({ type: 'text', nullable: true })
  chain!: string | null;

  @Column({ type: 'text', default: '' })
  label!: string;

  /** Comma-separated IPs; empty = unrestricted. */
  @Column({ name: 'ip_whitelist', type: 'text', default: '' })
  ipWhitelist!: string;

  @Column({ type: 'text', default: 'active' })
  status!: ApiKeyStatus;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
