import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { type Chain, Money } from '@perp/domain';
import { InsuranceMovementRepository } from '@perp/persistence';
import { CHAIN } from '@perp/runtime';
import { PAGE_QUERY } from '../native/adl.controller';
import { ApiDoc } from '../openapi/api-doc';
import { InsuranceFund, Solvency } from '../openapi/liquidation-responses';
import type { NativeFields } from '../openapi/native-fields';
import { NativeQuery } from '../openapi/route-inputs';
import { AdminTokenGuard } from './admin-token.guard';
import { SolvencyReader } from './solvency-reader';

/** Operator reads of the insurance fund and the exchange's solvency. */
@Controller('admin/v1')
@UseGuards(AdminTokenGuard)
export class AdminLiquidationController {
  constructor(
    private readonly movements: InsuranceMovementRepository,
    private readonly solvency: SolvencyReader,
    @Inject(CHAIN) private readonly chain: Chain,
  ) {}

  @Get('insurance-fund')
  @ApiDoc({
    tag: 'admin',
    summary: 'Insurance fund balance and movements (paged, newest first)',
    description:
      'The balance is the sum of each risk partition’s share after its latest movement; `ledger_balance` is what the risk ledgers hold now (the same once every movement is projected).',
    response: InsuranceFund,
    errors: ['INVALID_TOKEN', 'INVALID_REQUEST'],
  })
  async insuranceFund(@NativeQuery(PAGE_QUERY) q: NativeFields<typeof PAGE_QUERY>) {
    const page = q.get('page');
    const limit = q.get('limit');
    const [{ shares, page: history }, reading] = await Promise.all([
      this.movements.fund({ page, limit }),
      this.solvency.read(),
    ]);
    const balance = shares.reduce((sum, s) => sum.plus(s.balance), new Money(0));
    return {
      asset: this.chain.settlementAsset,
      balance: balance.toFixed(),
      ledger_balance: reading.insurance.toFixed(),
      partitions: shares,
      history: {
        items: history.rows.map((m) => ({
          partition: m.partition,
          symbol: m.symbol,
          kind: m.kind,
          amount: m.amount,
          balance: m.balance,
          ref: m.ref,
          time: m.time,
        })),
        page,
        limit,
        total: history.total,
      },
    };
  }

  @Get('solvency')
  @ApiDoc({
    tag: 'admin',
    summary: 'Deposits, wallets, open-position PnL, fees, insurance fund and their difference (exactly 0)',
    description:
      'Summed over the totals each risk partition writes after its turns; open positions valued at the current marks from their exact cost. `unsettled_symbols` lists symbols with a fill settled on one side only (in flight), while which the difference may briefly not be 0.',
    response: Solvency,
    errors: ['INVALID_TOKEN'],
  })
  async report() {
    const r = await this.solvency.read();
    return {
      asset: this.chain.settlementAsset,
      deposits: r.deposits.toFixed(),
      wallets: r.wallets.toFixed(),
      open_position_pnl: r.openPositionPnl.toFixed(),
      fees: r.fees.toFixed(),
      insurance_fund: r.insurance.toFixed(),
      difference: r.difference.toFixed(),
      partitions: r.partitions.length,
      unsettled_symbols: r.unsettled,
      time: Math.max(0, ...r.partitions.map((p) => p.time)),
    };
  }
}
