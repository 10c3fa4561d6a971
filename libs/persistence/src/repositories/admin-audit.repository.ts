import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AdminAuditEntity } from '../entities/admin-audit.entity';
import { BaseRepository, clampLimit } from './base.repository';

export interface NewAuditEntry {
  actor: string;
  action: string;
  payload?: object;
}

export class AdminAuditRepository extends BaseRepository<AdminAuditEntity> {
  constructor(manager: EntityManager) {
    super(manager, AdminAuditEntity);
  }

  async append(entry: NewAuditEntry): Promise<AdminAuditEntity> {
    const id = randomUUID();
    const row = this.repo.create({
      id,
      actor: entry.actor,
      action: entry.action,
      payload: entry.payload ?? {},
    });
    await this.repo.insert(row);
    return this.repo.findOneByOrFail({ id });
  }

  /** Newest first; `before` pages backwards by creation time. */
  list(filter: { action?: string; before?: Date; limit?: number } = {}): Promise<AdminAuditEntity[]> {
    const qb = this.repo.createQueryBuilder('a');
    if (filter.action !== undefined) qb.andWhere('a.action = :action', filter);
    if (filter.before !== undefined) qb.andWhere('a.created_at < :before', filter);
    return qb
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .limit(clampLimit(filter.limit))
      .getMany();
  }
}
