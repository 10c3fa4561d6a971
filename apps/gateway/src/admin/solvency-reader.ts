import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, readRiskTotals, type ReportedTotals } from '@perp/contracts';
import { type Money, parseDecimal, solvency, type SolvencyReport } from '@perp/domain';
import { Metrics } from '@perp/runtime';

export interface SolvencyReading extends SolvencyReport {
  partitions: ReportedTotals[];
}

/**
 * The deployment's solvency from the totals each risk partition writes to the hot store after its
 * turns, at the marks the hot store holds; also the source of the solvency and insurance metrics.
 */
@Injectable()
export class SolvencyReader implements OnModuleInit, OnModuleDestroy {
  private readonly stop: (() => void)[] = [];

  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly metrics: Metrics,
  ) {}

  async read(): Promise<SolvencyReading> {
    const partitions = await readRiskTotals(this.hot);
    const symbols = [...new Set(partitions.flatMap((p) => [...p.positions.keys()]))];
    const rows = await Promise.all(symbols.map((s) => this.hot.hgetall(HOT_KEYS.price(s))));
    const marks = new Map<string, Money>();
    rows.forEach((row, i) => {
      const mark = parseDecimal(row.markPrice);
      if (mark) marks.set(symbols[i]!, mark);
    });
    return { ...solvency(partitions, (s) => marks.get(s)), partitions };
  }

  onModuleInit(): void {
    this.stop.push(
      this.metrics.solvencyDifference.add(async () => {
        const r = await this.read();
        return [{ labels: {}, value: r.difference.toNumber() }];
      }),
      this.metrics.insuranceFund.add(async () => {
        const r = await this.read();
        return [{ labels: {}, value: r.insurance.toNumber() }];
      }),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.stop) stop();
  }
}
