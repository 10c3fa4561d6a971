import { randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Param, Post, Put, UseGuards } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, NativeError, type PriceEvent, TOPICS } from '@perp/contracts';
import { MarketRegistry, Money, parseDecimal } from '@perp/domain';
import { AdminAuditRepository, UserRepository } from '@perp/persistence';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import { nativeMarket } from '../markets/market-lookup';
import { nativeRefusalOf, nativeUnanswered } from '../outcomes/native-outcomes';
import { RiskClient, type RiskOutcome } from '../risk/risk-client';
import { AdminTokenGuard } from './admin-token.guard';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

type Json = Record<string, unknown>;

function objectBody(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new NativeError('INVALID_REQUEST', 'a JSON object body is required');
  return body as Json;
}

function address(raw: unknown): string {
  if (typeof raw !== 'string' || !ADDRESS.test(raw))
    throw new NativeError('INVALID_ADDRESS', 'address must be a 0x-prefixed 20-byte hex address');
  return raw.toLowerCase();
}

/** A positive decimal string (numbers are refused: a JSON number may already have lost digits). */
function positiveAmount(raw: unknown, name: string): Money {
  const v = typeof raw === 'string' ? parseDecimal(raw) : undefined;
  if (!v || !v.gt(0)) throw new NativeError('INVALID_AMOUNT', `${name} must be a positive decimal string`);
  return v;
}

/**
 * Operator account actions: deposits, VIP tiers and index prices. Each is a command on the log
 * (deposits and tiers to the user's risk shard, prices to the price topic) and an audit row.
 */
@Controller('admin/v1')
@UseGuards(AdminTokenGuard)
export class AdminAccountsController {
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
  async deposit(@Body() raw: unknown) {
    const body = objectBody(raw);
    const user = address(body.address);
    if (body.asset !== 'USDT') throw new NativeError('INVALID_REQUEST', 'asset must be USDT');
    const amount = positiveAmount(body.amount, 'amount');
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
  async vip(@Param('address') rawAddress: string, @Body() raw: unknown) {
    const user = address(rawAddress);
    const body = objectBody(raw);
    if (typeof body.tier !== 'number' || !Number.isInteger(body.tier) || body.tier < 0)
      throw new NativeError('INVALID_REQUEST', 'tier must be a non-negative integer');
    const tier = body.tier;
    const row = await this.users.findOrCreate(user);
    const result = await this.answer(await this.risk.send({ type: 'vip.set', user, tier, actor: 'admin' }));
    await this.users.setVipTier(row.user.id, tier);
    await this.audit.append({ actor: 'admin', action: 'vip.set', payload: { address: user, tier } });
    return result;
  }

  /**
   * Pushes an index price. Answers once the risk router has copied it into every risk partition
   * (it writes the hot price after the copies), so an order sent afterwards is checked against it.
   */
  @Post('prices/:symbol')
  @HttpCode(200)
  async price(@Param('symbol') rawSymbol: string, @Body() raw: unknown) {
    const market = nativeMarket(this.markets, rawSymbol);
    const body = objectBody(raw);
    const indexPrice = positiveAmount(body.indexPrice, 'indexPrice').toFixed();
    const time = Date.now();
    const event: PriceEvent = {
      id: `admin/${randomUUID()}`,
      v: 1,
      time,
      type: 'price.index',
      symbol: market.symbol,
      indexPrice,
      source: 'admin',
    };
    await this.bus.publish(TOPICS.prices.name, market.symbol, event);
    await this.audit.append({
      actor: 'admin',
      action: 'price.index',
      payload: { symbol: market.symbol, indexPrice },
    });
    const deadline = Date.now() + this.config.UPSTREAM_TIMEOUT_MS;
    for (;;) {
      const seen = await this.hot.hgetall(HOT_KEYS.price(market.symbol));
      if (Number(seen.time) >= time && seen.indexPrice === indexPrice) break;
      if (Date.now() > deadline)
        throw new NativeError('SERVICE_UNAVAILABLE', 'the price was published but not yet applied');
      await new Promise((r) => setTimeout(r, 10));
    }
    return { symbol: market.symbol, indexPrice, markPrice: indexPrice, time };
  }

  private answer(outcome: RiskOutcome): unknown {
    if (outcome.ok) return outcome.result;
    if ('unavailable' in outcome) throw nativeUnanswered(outcome.published);
    throw nativeRefusalOf(outcome.error);
  }
}
