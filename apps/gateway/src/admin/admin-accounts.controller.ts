import { randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Param, Post, Put, UseGuards } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, NativeError, type PriceEvent, TOPICS } from '@perp/contracts';
import { MarketRegistry, parseDecimal } from '@perp/domain';
import { AdminAuditRepository, UserRepository } from '@perp/persistence';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import { nativeMarket } from '../markets/market-lookup';
import { nativeRefusalOf, nativeUnanswered } from '../outcomes/native-outcomes';
import { RiskClient, type RiskOutcome } from '../risk/risk-client';
import { z } from 'zod';
import { ApiDoc } from '../openapi/api-doc';
import { NativeFields, nativeIssue } from '../openapi/native-fields';
import { AdminTokenGuard } from './admin-token.guard';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BAD_ADDRESS = nativeIssue('INVALID_ADDRESS', 'address must be a 0x-prefixed 20-byte hex address');

const addressField = z
  .string({ error: BAD_ADDRESS })
  .regex(ADDRESS, BAD_ADDRESS)
  .transform((a) => a.toLowerCase())
  .meta({ description: 'Wallet address, 0x-prefixed hex' });

/** A positive decimal string (numbers are refused: a JSON number may already have lost digits). */
const positiveAmount = (name: string, description: string) => {
  const bad = nativeIssue('INVALID_AMOUNT', `${name} must be a positive decimal string`);
  return z
    .string({ error: bad })
    .transform((v, ctx) => {
      const d = parseDecimal(v);
      if (d?.gt(0)) return d;
      ctx.issues.push({ code: 'custom', input: v, message: bad });
      return z.NEVER;
    })
    .meta({ description, examples: ['1000'] });
};

const DEPOSIT_BODY = {
  address: addressField,
  asset: z.literal('USDT', { error: nativeIssue('INVALID_REQUEST', 'asset must be USDT') }),
  amount: positiveAmount('amount', 'Amount to credit, as a string'),
};
const VIP_BODY = {
  tier: z
    .number({ error: nativeIssue('INVALID_REQUEST', 'tier must be a non-negative integer') })
    .int(nativeIssue('INVALID_REQUEST', 'tier must be a non-negative integer'))
    .min(0, nativeIssue('INVALID_REQUEST', 'tier must be a non-negative integer'))
    .meta({ description: 'A tier the chain defines' }),
};
const BAD_TIME = nativeIssue('INVALID_REQUEST', 'time must be a non-negative integer of ms');
const PRICE_BODY = {
  indexPrice: positiveAmount('indexPrice', 'Index price, as a string'),
  time: z.number({ error: BAD_TIME }).int(BAD_TIME).min(0, BAD_TIME).optional().meta({
    description: "The price's time (ms; default now): tests and replays drive funding times with it",
  }),
};

type Json = Record<string, unknown>;

function objectBody(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new NativeError('INVALID_REQUEST', 'a JSON object body is required');
  return body as Json;
}

const address = (raw: unknown) =>
  new NativeFields({ address: addressField }, { address: raw }).get('address');

/**
 * Operator account actions: deposits, VIP tiers and index prices. Each is a command on the log
 * (deposits and tiers to the user's risk shard, prices to the price topic) and an audit row.
 */
@Controller('admin/v1')
@UseGuards(AdminTokenGuard)
export class AdminAccountsController {
  /** Per symbol, the price push in progress (the last one queued). */
  private readonly pushing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly risk: RiskClient,
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    private readonly users: UserRepository,
    private readonly audit: AdminAuditRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('deposits')
  @HttpCode(200)
  @ApiDoc({
    tag: 'admin',
    summary: 'Credit a wallet',
    body: DEPOSIT_BODY,
    response: z.object({
      address: z.string(),
      asset: z.string(),
      balance: z.string(),
      availableBalance: z.string(),
    }),
    errors: ['INVALID_ADDRESS', 'INVALID_AMOUNT', 'INVALID_REQUEST', 'SERVICE_UNAVAILABLE'],
  })
  async deposit(@Body() raw: unknown) {
    const body = new NativeFields(DEPOSIT_BODY, objectBody(raw));
    const user = body.get('address');
    body.get('asset');
    const amount = body.get('amount');
    await this.users.findOrCreate(user);
    const result = await this.answer(
      await this.risk.send({
        type: 'deposit',
        user,
        asset: 'USDT',
        amount: amount.toFixed(),
        actor: 'admin',
      }),
    );
    await this.audit.append({
      actor: 'admin',
      action: 'deposit',
      payload: { address: user, amount: amount.toFixed() },
    });
    return result;
  }

  @Put('users/:address/vip')
  @HttpCode(200)
  @ApiDoc({
    tag: 'admin',
    summary: 'Set a user’s VIP fee tier',
    path: { address: addressField },
    body: VIP_BODY,
    response: z.object({ address: z.string(), tier: z.number().int() }),
    errors: ['INVALID_ADDRESS', 'INVALID_REQUEST', 'SERVICE_UNAVAILABLE'],
  })
  async vip(@Param('address') rawAddress: string, @Body() raw: unknown) {
    const user = address(rawAddress);
    const tier = new NativeFields(VIP_BODY, objectBody(raw)).get('tier');
    const row = await this.users.findOrCreate(user);
    const result = await this.answer(await this.risk.send({ type: 'vip.set', user, tier, actor: 'admin' }));
    await this.users.setVipTier(row.user.id, tier);
    await this.audit.append({ actor: 'admin', action: 'vip.set', payload: { address: user, tier } });
    return result;
  }

  /**
   * Pushes an index price. Answers once the risk router has copied the mark derived from it into
   * every risk partition (it writes the hot price after the copies), so an order sent afterwards is
   * checked against it.
   */
  @Post('prices/:symbol')
  @HttpCode(200)
  @ApiDoc({
    tag: 'admin',
    summary: 'Push an index price',
    description:
      'Answers once the mark market data derives from it is applied in every risk partition, with that mark. Pushes of one symbol to one gateway are applied and answered one after another.',
    path: { symbol: z.string().meta({ description: 'Market, any alias' }) },
    body: PRICE_BODY,
    response: z.object({
      symbol: z.string(),
      indexPrice: z.string(),
      markPrice: z.string(),
      time: z.number().int(),
    }),
    errors: ['INVALID_AMOUNT', 'INVALID_REQUEST', 'INVALID_MARKET', 'SERVICE_UNAVAILABLE'],
  })
  async price(@Param('symbol') rawSymbol: string, @Body() raw: unknown) {
    const market = nativeMarket(this.markets, rawSymbol);
    const body = new NativeFields(PRICE_BODY, objectBody(raw));
    const indexPrice = body.get('indexPrice').toFixed();
    const time = body.get('time') ?? Date.now();
    // One push of a symbol at a time (in this process): each waits for its own figures, which a
    // push published right after it would replace before they were seen.
    const queued = (this.pushing.get(market.symbol) ?? Promise.resolve()).then(
      () => this.push(market.symbol, indexPrice, time),
      () => this.push(market.symbol, indexPrice, time),
    );
    this.pushing.set(market.symbol, queued);
    try {
      return await queued;
    } finally {
      if (this.pushing.get(market.symbol) === queued) this.pushing.delete(market.symbol);
    }
  }

  private async push(symbol: string, indexPrice: string, time: number) {
    const event: PriceEvent = {
      id: `admin/${randomUUID()}`,
      v: 1,
      time,
      type: 'price.index',
      symbol,
      indexPrice,
      source: 'admin',
    };
    await this.bus.publish(TOPICS.prices.name, symbol, event);
    await this.audit.append({ actor: 'admin', action: 'price.index', payload: { symbol, indexPrice } });
    const deadline = Date.now() + this.config.UPSTREAM_TIMEOUT_MS;
    for (;;) {
      const seen = await this.hot.hgetall(HOT_KEYS.price(symbol));
      if (Number(seen.time) >= time && seen.indexPrice === indexPrice)
        return { symbol, indexPrice, markPrice: seen.markPrice!, time };
      if (Date.now() > deadline)
        throw new NativeError('SERVICE_UNAVAILABLE', 'the price was published but not yet applied');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private answer(outcome: RiskOutcome): unknown {
    if (outcome.ok) return outcome.result;
    if ('unavailable' in outcome) throw nativeUnanswered(outcome.published);
    throw nativeRefusalOf(outcome.error);
  }
}
