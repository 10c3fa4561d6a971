import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ApiKeyEntity, type ApiKeyStatus } from '../entities/api-key.entity';
import { UserEntity } from '../entities/user.entity';
import { BaseRepository } from './base.repository';

/** The spec's ceiling of keys per account per deployment. */
export const MAX_API_KEYS_PER_USER = 30;

export class ApiKeyLimitReachedError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} API keys per account`);
    this.name = 'ApiKeyLimitReachedError';
  }
}

export interface NewApiKey {
  userId: string;
  /** The chain deployment the key is made on; it works there only. */
  chain: string;
  apiKey: string;
  secretCiphertext: string;
  label?: string;
  ipWhitelist?: string;
}

export interface ApiKeyPatch {
  label?: string;
  ipWhitelist?: string;
  status?: ApiKeyStatus;
}

export class ApiKeyRepository extends BaseRepository<ApiKeyEntity> {
  constructor(manager: EntityManager) {
    super(manager, ApiKeyEntity);
  }

  /**
   * Adds a key unless the user already has `maxPerUser` (then ApiKeyLimitReachedError). The user's
   * row is locked for the count and the insert, so concurrent requests cannot both slip under it.
   */
  async create(input: NewApiKey, maxPerUser = MAX_API_KEYS_PER_USER): Promise<ApiKeyEntity> {
    return this.manager.transaction(async (m) => {
      const user = await m
        .createQueryBuilder(UserEntity, 'u')
        .setLock('pessimistic_write')
        .where('u.id = :id', { id: input.userId })
        .getOne();
      if (!user) throw new Error(`unknown user ${input.userId}`);
      if ((await m.countBy(ApiKeyEntity, { userId: input.userId, chain: input.chain })) >= maxPerUser)
        throw new ApiKeyLimitReachedError(maxPerUser);
      const id = randomUUID();
      await m.insert(ApiKeyEntity, {
        id,
        userId: input.userId,
        chain: input.chain,
        apiKey: input.apiKey,
        secretCiphertext: input.secretCiphertext,
        label: input.label ?? '',
        ipWhitelist: input.ipWhitelist ?? '',
      });
      return m.findOneByOrFail(ApiKeyEntity, { id });
    });
  }

  /**
   * The key a signed request names on `chain` (any status: the caller answers API_KEY_DISABLED
   * itself); a key of another chain deployment is not found.
   */
  async findByApiKey(apiKey: string, chain: string): Promise<ApiKeyEntity | undefined> {
    return (await this.repo.findOneBy({ apiKey, chain })) ?? undefined;
  }

  async findForUser(userId: string, id: string, chain: string): Promise<ApiKeyEntity | undefined> {
    return (await this.repo.findOneBy({ id, userId, chain })) ?? undefined;
  }

  /** Oldest first. */
  listByUser(userId: string, chain: string): Promise<ApiKeyEntity[]> {
    return this.repo.find({ where: { userId, chain }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  countByUser(userId: string, chain: string): Promise<number> {
    return this.repo.countBy({ userId, chain });
  }

  /** Applies the given fields to the user's key; undefined when the key is not theirs or absent. */
  async update(
    userId: string,
    id: string,
    chain: string,
    patch: ApiKeyPatch,
  ): Promise<ApiKeyEntity | undefined> {
    const fields = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    if (Object.keys(fields).length > 0) await this.repo.update({ id, userId, chain }, fields);
    return this.findForUser(userId, id, chain);
  }

  async delete(userId: string, id: string, chain: string): Promise<boolean> {
    return ((await this.repo.delete({ id, userId, chain })).affected ?? 0) > 0;
  }

  /** Gives the keys made before keys had a chain to `chain`; the number claimed. */
  async claimUnowned(chain: string): Promise<number> {
    const r = await this.repo.createQueryBuilder().update().set({ chain }).where('chain IS NULL').execute();
    return r.affected ?? 0;
  }

  /**
   * Records a use of the key at `at`. last_used_at never moves backwards: replicas flush their
   * uses independently and a retried write may arrive late, so the newer of the stored and the
   * given time wins (GREATEST ignores the NULL of a key never used).
   */
  async touchLastUsed(id: string, at: Date = new Date()): Promise<void> {
    await this.repo
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'GREATEST(last_used_at, CAST(:at AS timestamptz))' })
      .where('id = :id', { id })
      .setParameter('at', at)
      .execute();
  }
}
