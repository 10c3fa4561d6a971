import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type AlgoOrderRecord, algoOrdersProjection, FapiError, HOT_KEYS } from '@perp/contracts';

/** Algo windows: at most 7 days (-1100 beyond), the last 7 days by default. */
export const ALGO_WINDOW_MS = 7 * 24 * 3600_000;

/** A user's algo orders as the risk shard last wrote them (live, then the recently ended). */
@Injectable()
export class AlgoOrderReader {
  constructor(@Inject(HOT_STORE) private readonly hot: HotStore) {}

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
    const found = [...ended, ...live].filter(match).sort((a, b) => b.createTime - a.createTime)[0];
    if (!found) throw new FapiError('NO_SUCH_ORDER', 'Order does not exist.');
    return found;
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
