import { Check, Column, Entity, PrimaryColumn, Unique } from 'typeorm';

export type MarginMode = 'unified' | 'isolated';

/** A wallet account. `id` is `userIdForAddress(address)`. */
@Entity({ name: 'users' })
@Unique('users_address_key', ['address'])
@Check('users_address_lower', 'address = lower(address)')
@Check('users_vip_tier_check', 'vip_tier >= 0')
@Check('users_margin_mode_check', `margin_mode IN ('unified', 'isolated')`)
export class UserEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** Lowercase 0x address (a check constraint refuses mixed case). */
  @Column({ type: 'text' })
  address!: string;

  @Column({ name: 'vip_tier', type: 'int', default: 0 })
  vipTier!: number;

  @Column({ name: 'margin_mode', type: 'text', default: 'unified' })
  marginMode!: MarginMode;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
