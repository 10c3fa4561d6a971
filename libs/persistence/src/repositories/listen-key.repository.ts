import type { EntityManager } from 'typeorm';
import { ListenKeyEntity } from '../entities/listen-key.entity';
import { tableName } from './bulk-insert';
import { BaseRepository } from './base.repository';

/** Listen keys in Postgres (the gateway's ListenKeys keeps the hot store's copy in front). */
export class ListenKeyRepository extends BaseRepository<ListenKeyEntity> {
  constructor(manager: EntityManager) {
    super(manager, ListenKeyEntity);
  }

  async save(listenKey: string, address: string, expiresAt: number): Promise<void> {
    await this.repo.upsert({ listenKey, address, expiresAt }, ['listenKey']);
  }

  async extend(listenKey: string, expiresAt: number): Promise<void> {
    await this.repo.update({ listenKey }, { expiresAt });
  }

  async remove(listenKey: string): Promise<void> {
    await this.repo.delete({ listenKey });
  }

  /** The key when it has not expired at `now`. */
  async find(listenKey: string, now: number): Promise<ListenKeyEntity | undefined> {
    // Query builders: the time column's transformer takes numbers, not find operators.
    return (
      (await this.repo
        .createQueryBuilder('k')
        .where('k.listen_key = :listenKey AND k.expires_at > :now', { listenKey, now })
        .getOne()) ?? undefined
    );
  }

  /** The user's key alive at `now` (the latest to expire), if any. */
  async activeOf(address: string, now: number): Promise<ListenKeyEntity | undefined> {
    return (
      (await this.repo
        .createQueryBuilder('k')
        .where('k.address = :address AND k.expires_at > :now', { address, now })
        .orderBy('k.expires_at', 'DESC')
        .getOne()) ?? undefined
    );
  }

  /** Forgets the user's keys that expired before `now`. */
  async purgeExpired(address: string, now: number): Promise<void> {
    await this.repo
      .createQueryBuilder()
      .delete()
      .where('address = :address AND expires_at < :now', { address, now })
      .execute();
  }

  /** The keys' resume places, in one statement. */
  async saveCursors(rows: readonly { listenKey: string; cursor: string }[]): Promise<void> {
    if (!rows.length) return;
    await this.manager.query(
      `UPDATE ${tableName(this.manager, ListenKeyEntity)} k SET cursor = c.cursor
       FROM unnest($1::text[], $2::text[]) AS c(listen_key, cursor) WHERE k.listen_key = c.listen_key`,
      [rows.map((r) => r.listenKey), rows.map((r) => r.cursor)],
    );
  }
}
