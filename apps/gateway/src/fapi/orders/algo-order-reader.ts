import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  type AlgoOrderRecord,
  algoOrderRecord,
  algoOrdersProjection,
  FapiError,
  HOT_KEYS,
  userIdForAddress,
} from '@perp/contracts';
import { type AlgoOrderEntity, AlgoOrderRepository } from '@perp/persistence';

/** Algo windows: at most 7 days (-1100 beyond), the last 7 days by default. */
export const ALGO_WINDOW_MS = 7 * 24 * 3600_000;

export interface AlgoListQuery {
  symbol: string;
  from: number;
  to: number;
  fromId?: number;
  page: number;
  limit: number;
}

/**
 * A user's algo orders: the live ones and the recently ended as the risk shard last wrote them to
 * the hot store (read-your-writes), and the history projected into Postgres behind the log. A
 * record in both is taken at its latest update.
 */
@Injectable()
export class AlgoOrderReader {
  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly history: AlgoOrderRepository,
  ) {}

  async all(user: string): Promise<{ live: AlgoOrderRecord[]; ended: AlgoOrderRecord[] }> {
    const json = await this.hot.get(HOT_KEYS.algoOrders(user));
    if (json === undefined) return { live: [], ended: [] };
    const p = algoOrdersProjection.parse(JSON.parse(json));
    return { live: p.live, ended: p.ended };
  }

  /** One algo order by id or client id (the newest with that client id), else -2013. */
  async one(user: string, ref: { algoId?: number; clientAlgoId?: string }): Promise<AlgoOrderRecord> {
    const { live, ended } = await this.all(user);
    const match = (r: AlgoOrderRecord) =>
      ref.algoId !== undefined ? r.algoId === ref.algoId : r.clientAlgoId === ref.clientAlgoId;
    const hot = [...ended, ...live].filter(match).sort((a, b) => b.createTime - a.createTime)[0];
    const key = ref.algoId !== undefined ? { algoId: ref.algoId } : { clientAlgoId: ref.clientAlgoId ?? '' };
    const row = await this.history.findForUser(userIdForAddress(user), key);
    const found = latest([...(hot ? [hot] : []), ...(row ? [recordOf(row)] : [])])[0];
    if (!found) throw new FapiError('NO_SUCH_ORDER', 'Order does not exist.');
    return found;
  }

  /** The user's algo orders of a symbol created in the window, by algoId, one page. */
  async list(user: string, q: AlgoListQuery): Promise<AlgoOrderRecord[]> {
    const { live, ended } = await this.all(user);
    const inWindow = (r: AlgoOrderRecord) =>
      r.symbol === q.symbol &&
      r.createTime >= q.from &&
      r.createTime <= q.to &&
      (q.fromId === undefined || r.algoId >= q.fromId);
    // Enough history rows for the page, whatever part of it the hot store also holds.
    const rows = await this.history.listByUser(userIdForAddress(user), {
      symbol: q.symbol,
      from: q.from,
      to: q.to,
      fromId: q.fromId,
      limit: q.page * q.limit,
    });
    const merged = latest([...live, ...ended].filter(inWindow).concat(rows.map(recordOf)));
    return merged.sort((a, b) => a.algoId - b.algoId).slice((q.page - 1) * q.limit, q.page * q.limit);
  }
}

/** startTime and endTime as Binance's algo queries take them: at most 7 days apart, else -1100. */
export function algoWindow(now: number, startTime?: number, endTime?: number): { from: number; to: number } {
  if (startTime !== undefined && endTime !== undefined) {
    if (endTime - startTime > ALGO_WINDOW_MS)
      throw new FapiError('ILLEGAL_CHARS', 'The time between startTime and endTime must be at most 7 days.');
    return { from: startTime, to: endTime };
  }
  if (startTime !== undefined) return { from: startTime, to: startTime + ALGO_WINDOW_MS };
  const to = endTime ?? now;
  return { from: to - ALGO_WINDOW_MS, to };
}

/** The wire record: every field but the owner and the internal reason. */
export function fapiAlgoOrder(r: AlgoOrderRecord): Omit<AlgoOrderRecord, 'user' | 'reason'> {
  const { user: _user, reason: _reason, ...wire } = r;
  void _user;
  void _reason;
  return wire;
}

function recordOf(row: AlgoOrderEntity): AlgoOrderRecord {
  return algoOrderRecord.parse(JSON.parse(row.record));
}

/** One record per algoId: the latest update (the hot store is ahead of the history, or equal). */
function latest(records: AlgoOrderRecord[]): AlgoOrderRecord[] {
  const byId = new Map<number, AlgoOrderRecord>();
  for (const r of records) {
    const seen = byId.get(r.algoId);
    if (!seen || r.updateTime > seen.updateTime) byId.set(r.algoId, r);
  }
  return [...byId.values()];
}
