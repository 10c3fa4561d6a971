import { Money, type PartitionTotals, parseDecimal } from '@perp/domain';
import { z } from 'zod';
import { decimal, ms } from '../messages/primitives';
import { TOPICS } from '../messages/topics';

/**
 * Each risk partition's money totals in the hot store (`risk-totals:v2:{partition}`; v2 came with
 * the account hashes, so that a partition restored on a hot store of the older layout writes every
 * account again), written by the shard owning it with the turn's account projections; the gateway sums them for
 * GET /admin/v1/solvency and the solvency metrics. Position figures are exact (net size and net
 * signed cost per symbol), so the sum values open positions at any mark without rounding.
 */
export const RISK_TOTALS_KEY = (partition: number) => `risk-totals:v2:${partition}`;

export const riskTotalsRecord = z.object({
  v: z.literal(1),
  partition: z.number().int().nonnegative(),
  /** Time of the turn that wrote it, and the last risk-command offset that turn applied. */
  time: ms,
  offset: z.string(),
  deposits: decimal,
  wallets: decimal,
  fee: decimal,
  insurance: decimal,
  clearing: decimal,
  /** [symbol, net size, net signed cost] of the partition's open positions. */
  positions: z.array(z.tuple([z.string(), decimal, decimal])),
});
export type RiskTotalsRecord = z.infer<typeof riskTotalsRecord>;

export function riskTotalsRecordOf(
  partition: number,
  time: number,
  offset: bigint,
  t: PartitionTotals,
): RiskTotalsRecord {
  return {
    v: 1,
    partition,
    time,
    offset: offset.toString(),
    deposits: t.deposits.toFixed(),
    wallets: t.wallets.toFixed(),
    fee: t.fee.toFixed(),
    insurance: t.insurance.toFixed(),
    clearing: t.clearing.toFixed(),
    positions: [...t.positions].map(([symbol, p]) => [symbol, p.size.toFixed(), p.cost.toFixed()]),
  };
}

const money = (v: string) => parseDecimal(v) ?? new Money(0);

export interface ReportedTotals extends PartitionTotals {
  partition: number;
  time: number;
}

export function totalsOfRecord(r: RiskTotalsRecord): ReportedTotals {
  return {
    partition: r.partition,
    time: r.time,
    deposits: money(r.deposits),
    wallets: money(r.wallets),
    fee: money(r.fee),
    insurance: money(r.insurance),
    clearing: money(r.clearing),
    positions: new Map(r.positions.map(([s, size, cost]) => [s, { size: money(size), cost: money(cost) }])),
  };
}

/** The totals every risk partition reported (partitions that never wrote one are absent). */
export async function readRiskTotals(
  hot: { get(key: string): Promise<string | undefined> },
  partitions = TOPICS.riskCommands.partitions,
): Promise<ReportedTotals[]> {
  const raws = await Promise.all(Array.from({ length: partitions }, (_, p) => hot.get(RISK_TOTALS_KEY(p))));
  return raws.flatMap((raw) =>
    raw === undefined ? [] : [totalsOfRecord(riskTotalsRecord.parse(JSON.parse(raw)))],
  );
}
