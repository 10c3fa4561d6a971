import { Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { NativeError } from '@perp/contracts';
import { type Chain, type MarginMode, Money, parseDecimal, parseMarginMode } from '@perp/domain';
import { CHAIN } from '@perp/runtime';
import { z } from 'zod';
import { ApiDoc } from '../../openapi/api-doc';
import { NativeFields, nativeIssue } from '../../openapi/native-fields';
import { CollateralAnswer, MarginModeAnswer, NativeAccount } from '../../openapi/native-responses';
import { NativeBody } from '../../openapi/route-inputs';
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

const NOT_AN_AMOUNT = nativeIssue('INVALID_AMOUNT', 'amount must be a positive decimal string');
const BAD_MODE = nativeIssue('INVALID_MARGIN_MODE', 'margin_mode must be "isolated" or "unified"');

/** A positive decimal amount (string, or a JSON number read as its decimal form), else INVALID_AMOUNT. */
export const COLLATERAL_BODY = {
  amount: z
    .union([z.string(), z.number()], { error: NOT_AN_AMOUNT })
    .transform((v, ctx) => {
      const d = parseDecimal(v);
      if (d?.gt(0)) return d;
      ctx.issues.push({ code: 'custom', input: v, message: NOT_AN_AMOUNT });
      return z.NEVER;
    })
    .meta({ description: 'USDT, positive', examples: ['25'] }),
};

const mode = (description: string) =>
  z
    .string({ error: BAD_MODE })
    .transform((v, ctx) => {
      const m = parseMarginMode(v);
      if (m && NATIVE_MODES.includes(m)) return m;
      ctx.issues.push({ code: 'custom', input: v, message: BAD_MODE });
      return z.NEVER;
    })
    .optional()
    .meta({ description, enum: ['isolated', 'unified'] });

/** `margin_mode` (or `mode`): isolated or unified, any case; anything else is INVALID_MARGIN_MODE. */
export const MARGIN_MODE_BODY = {
  margin_mode: mode('The mode to switch to (any case)'),
  mode: mode('Alias of margin_mode'),
};

export function nativeMarginModeOf(body: NativeFields<typeof MARGIN_MODE_BODY>): MarginMode {
  const chosen = body.has('margin_mode') ? body.get('margin_mode') : body.get('mode');
  if (!chosen) throw new NativeError('INVALID_MARGIN_MODE', 'margin_mode must be "isolated" or "unified"');
  return chosen;
}

function collateralDoc(summary: string, action: 'add' | 'remove') {
  return {
    tag: 'account',
    summary,
    path: { positionId: z.string().meta({ description: 'The position’s `id` from GET /api/v1/account' }) },
    response: CollateralAnswer,
    errors: [
      'INVALID_AMOUNT',
      'INVALID_MARGIN_MODE',
      ...(action === 'add' ? (['INSUFFICIENT_BALANCE'] as const) : []),
      'NOT_FOUND',
      'SERVICE_UNAVAILABLE',
    ] as const,
  };
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
  @ApiDoc({ tag: 'account', summary: 'Balances and positions', response: NativeAccount })
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
  @ApiDoc({
    tag: 'account',
    summary: 'Switch between isolated and unified margin',
    description: 'Needs no open orders, then no open positions. Asking for the current mode succeeds.',
    response: MarginModeAnswer,
    errors: [
      'INVALID_MARGIN_MODE',
      'INVALID_REQUEST',
      'HAS_OPEN_ORDERS',
      'HAS_OPEN_POSITIONS',
      'SERVICE_UNAVAILABLE',
    ],
  })
  async marginMode(
    @CurrentUser() user: AuthUser,
    @NativeBody(MARGIN_MODE_BODY) body: NativeFields<typeof MARGIN_MODE_BODY>,
  ): Promise<MarginModeAnswer> {
    const mode = nativeMarginModeOf(body);
    const outcome = await this.risk.send({ type: 'margin.mode', user: user.address, mode });
    if (!outcome.ok) throw nativeRefusal(outcome);
    const result = outcome.result as { marginMode: MarginMode; changed: boolean };
    return { margin_mode: nativeMarginMode(result.marginMode), changed: result.changed };
  }

  @Post('positions/:positionId/collateral/add')
  @HttpCode(200)
  @ApiDoc(collateralDoc('Add collateral to an isolated position (from the available balance)', 'add'))
  add(
    @CurrentUser() user: AuthUser,
    @Param('positionId') id: string,
    @NativeBody(COLLATERAL_BODY) body: NativeFields<typeof COLLATERAL_BODY>,
  ) {
    return this.collateral(user.address, id, 'add', body);
  }

  @Post('positions/:positionId/collateral/remove')
  @HttpCode(200)
  @ApiDoc(collateralDoc('Remove collateral above the initial margin of an isolated position', 'remove'))
  remove(
    @CurrentUser() user: AuthUser,
    @Param('positionId') id: string,
    @NativeBody(COLLATERAL_BODY) body: NativeFields<typeof COLLATERAL_BODY>,
  ) {
    return this.collateral(user.address, id, 'remove', body);
  }

  private async collateral(
    address: string,
    positionId: string,
    action: 'add' | 'remove',
    body: NativeFields<typeof COLLATERAL_BODY>,
  ): Promise<CollateralAnswer> {
    const { account } = await this.reader.load(address);
    const position = account.findPositionById(positionId);
    if (!position) throw new NativeError('NOT_FOUND', `no open position ${positionId}`);
    const value = body.get('amount');
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
