import type { EntityManager } from 'typeorm';
import { type MarginMode, UserEntity } from '../entities/user.entity';
import { userIdForAddress } from '@perp/contracts';
import { BaseRepository } from './base.repository';

const ADDRESS = /^0x[0-9a-f]{40}$/;

export class UserRepository extends BaseRepository<UserEntity> {
  constructor(manager: EntityManager) {
    super(manager, UserEntity);
  }

  async findById(id: string): Promise<UserEntity | undefined> {
    return (await this.repo.findOneBy({ id })) ?? undefined;
  }

  async findByAddress(address: string): Promise<UserEntity | undefined> {
    return (await this.repo.findOneBy({ address: address.toLowerCase() })) ?? undefined;
  }

  /** The user of a wallet, created on first sight (concurrent callers get the same row). */
  async findOrCreate(address: string): Promise<{ user: UserEntity; created: boolean }> {
    const normalized = address.toLowerCase();
    if (!ADDRESS.test(normalized)) throw new Error(`not a 0x address: ${address}`);
    const id = userIdForAddress(normalized);
    const inserted = await this.repo
      .createQueryBuilder()
      .insert()
      .values({ id, address: normalized })
      .orIgnore()
      .returning(['id'])
      .execute();
    const user = await this.repo.findOneByOrFail({ id });
    return { user, created: (inserted.raw as unknown[]).length > 0 };
  }

  async setVipTier(id: string, vipTier: number): Promise<boolean> {
    if (!Number.isInteger(vipTier) || vipTier < 0) throw new RangeError(`bad VIP tier: ${vipTier}`);
    return ((await this.repo.update({ id }, { vipTier })).affected ?? 0) > 0;
  }

  async setMarginMode(id: string, marginMode: MarginMode): Promise<boolean> {
    return ((await this.repo.update({ id }, { marginMode })).affected ?? 0) > 0;
  }
}
