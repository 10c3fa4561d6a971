import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { NativeError } from '@perp/contracts';
import { type Chain, type MarginMode, Money, parseDecimal, parseMarginMode } from '@perp/domain';
import { CHAIN } from '@perp/runtime';
import { objectBody } from '../../access/object-body';
import { AccountReader, marksOf } from '../../fapi/account/account-reader';
import { amount } from '../../fapi/account/format';
import { symbolRisks } from '../../fapi/account/position-risk-view';
import { RiskClient } from '../../risk/risk-client';
import { nativeAccount, nativeMarginMode, type NativeAccountView } from './native-account-view';
import { nativeRefusal } from './native-refusal';

/** The modes a native client may switch to (CROSS is the FAPI default an account starts in). */
const NATIVE_MODES: readonly MarginMode[] = ['ISOLATED', 'UNIFIED'];

export interface MarginModeAnswer {
  margin_mode: 'cross' | 'isolated' | 'unified';
  /** False when the account was in that mode already. */
  changed: boolean;
}

export interface CollateralAnswer {
  position_id: string;
  symbol: string;
  action: 'add' | 'remove';
  amount: string;
  /** Collateral added above the initial margin, after the change. */
  collateral: string;
  /** Margin + collateral the position now holds. */
  isolated_margin: string;
}

/** A positive decimal amount (string, or a JSON number read as its decimal form), else INVALID_AMOUNT. */
export function positiveAmount(raw: unknown): Money {
  const v = typeof raw === 'string' || typeof raw === 'number' ? parseDecimal(raw) : undefined;
  if (!v?.gt(0)) throw new NativeError('INVALID_AMOUNT', 'amount must be a positive decimal string');
  return v;
}

/** `margin_mode` (or `mode`): isolated or unified, any case; anything else is INVALID_MARGIN_MODE. */
export function nativeMarginModeOf(raw: unknown): MarginMode {
  const body = objectBody(raw);
  const given = body.margin_mode ?? body.mode;
  const mode = parseMarginMode(given);
  if (!mode || !NATIVE_MODES.includes(mode))
    throw new NativeError('INVALID_MARGIN_MODE', 'margin_mode must be "isolated" or "unified"');
  return mode;
}

/**
 * The native account (JWT): balances and positions as the domain computes them from the live
 * account the risk shard wrote, margin mode and isolated collateral (commands to the risk shard).
 * Errors in the flat `{error, code}` envelope.
 */
@Controller('api/v1')
@UseGuards(JwtAuthGuard)
export class NativeAccountController {
  constructor(
    private readonly risk: RiskClient,
    private readonly reader: AccountReader,
    @Inject(CHAIN) private readonly chain: Chain,
  ) {}

  @Get('account')
  async account(@CurrentUser() user: AuthUser): Promise<NativeAccountView> {
    const snapshot = await this.reader.snapshot(user.address);
    const markets = this.reader.marketLookup;
    const balances = snapshot.account.balances(marksOf(snapshot), markets);
    const symbols = snapshot.account.positions().map((p) => p.symbol);
    const takerRate = this.reader.feeRates(snapshot.account).taker;
    const risks = symbolRisks(snapshot, symbols, markets, takerRate);
    return nativeAccount(snapshot, balances, risks, this.chain.settlementAsset);
  }

  @Post('account/margin-mode')
  @HttpCode(200)
  async marginMode(@CurrentUser() user: AuthUser, @Body() body: unknown): Promise<MarginModeAnswer> {
    const mode = nativeMarginModeOf(body);
    const outcome = await this.risk.send({ type: 'margin.mode', user: user.address, mode });
    if (!outcome.ok) throw nativeRefusal(outcome);
    const result = outcome.result as { marginMode: MarginMode; changed: boolean };
    return { margin_mode: nativeMarginMode(result.marginMode), changed: result.changed };
  }

  @Post('positions/:positionId/collateral/add')
  @HttpCode(200)
  add(@CurrentUser() user: AuthUser, @Param('positionId') id: string, @Body() body: unknown) {
    return this.collateral(user.address, id, 'add', body);
  }

  @Post('positions/:positionId/collateral/remove')
  @HttpCode(200)
  remove(@CurrentUser() user: AuthUser, @Param('positionId') id: string, @Body() body: unknown) {
    return this.collateral(user.address, id, 'remove', body);
  }

  private async collateral(
    address: string,
    positionId: string,
    action: 'add' | 'remove',
    raw: unknown,
  ): Promise<CollateralAnswer> {
    const { account } = await this.reader.load(address);
    const position = account.findPositionById(positionId);
    if (!position) throw new NativeError('NOT_FOUND', `no open position ${positionId}`);
    const value = positiveAmount(objectBody(raw).amount);
    const outcome = await this.risk.send({
      type: 'collateral',
      user: address,
      symbol: position.symbol,
      action,
      amount: value.toFixed(),
    });
    if (!outcome.ok) throw nativeRefusal(outcome);
    const result = outcome.result as { symbol: string; collateral: string; isolatedMargin: string };
    return {
      position_id: positionId,
      symbol: result.symbol,
      action,
      amount: value.toFixed(),
      collateral: amount(new Money(result.collateral)),
      isolated_margin: amount(new Money(result.isolatedMargin)),
    };
  }
}
