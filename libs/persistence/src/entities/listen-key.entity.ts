import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMsTransformer } from '../columns';

/**
 * A user data stream's listen key, kept beside its hot-store copy so that a restart of the gateway
 * (the embedded exchange's hot store is memory) or a flushed Redis loses neither the key nor the
 * place a reconnecting client resumes from. `cursor` is that place as last saved (every second and
 * at shutdown: a crash may replay a second of events, never skip one).
 */
@Entity({ name: 'listen_keys' })
@Index('listen_keys_address_idx', ['address', 'expiresAt'])
export class ListenKeyEntity {
  @PrimaryColumn({ name: 'listen_key', type: 'text' })
  listenKey!: string;

  @Column({ type: 'text' })
  address!: string;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMsTransformer })
  expiresAt!: number;

  @Column({ type: 'text', nullable: true })
  cursor!: string | null;
}
