import { randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { Bus, BusTimeoutError } from '@perp/bus';
import { type EngineCommand, NativeError, type Reply, TOPICS } from '@perp/contracts';
import { type MarketStatus, MarketRegistry, normalizeSymbol, parseMarket } from '@perp/domain';
import { AdminAuditRepository } from '@perp/persistence';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import { nativeMarket } from '../markets/market-lookup';
import { nativeRefusalOf, nativeUnanswered } from '../outcomes/native-outcomes';
import { z } from 'zod';
import { ApiDoc, type ApiDocSpec } from '../openapi/api-doc';
import { AnyObject, MarketConfig } from '../openapi/native-responses';
import { AdminTokenGuard } from './admin-token.guard';

const symbolPath = { symbol: z.string().meta({ description: 'Market, any alias' }) };
const statusDoc = (summary: string): ApiDocSpec => ({
  tag: 'admin',
  summary,
  description:
    'Answers once the engine applied the change and every risk shard has it in its order of inputs: an order sent after the answer, by any user, is checked against the new status.',
  path: symbolPath,
  response: AnyObject,
  errors: ['INVALID_MARKET', 'MARKET_DELISTED', 'SERVICE_UNAVAILABLE', 'EXECUTION_STATUS_UNKNOWN'],
});

/** Operator market changes; each is a command on the log, applied by the engine owning the symbol. */
@Controller('admin/v1/markets')
@UseGuards(AdminTokenGuard)
export class AdminMarketsController {
  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    private readonly audit: AdminAuditRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiDoc({
    tag: 'admin',
    summary: 'Add a market',
    description:
      'The body is checked with the chain.json market schema (optional fields take defaults) before the engine gets it: INVALID_REQUEST names the fields.',
    body: MarketConfig.shape,
    response: AnyObject,
    errors: ['INVALID_REQUEST', 'MARKET_EXISTS', 'SERVICE_UNAVAILABLE', 'EXECUTION_STATUS_UNKNOWN'],
  })
  add(@Body() body: unknown) {
    const market = (body ?? {}) as Record<string, unknown>;
    if (typeof market.symbol !== 'string') throw new NativeError('INVALID_REQUEST', 'symbol is required');
    const symbol = normalizeSymbol(market.symbol);
    // The engine's own check, first here: a definition it would refuse never reaches the log.
    try {
      parseMarket({ ...market, symbol });
    } catch (e) {
      const why =
        e instanceof z.ZodError
          ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
          : (e as Error).message;
      throw new NativeError('INVALID_REQUEST', `Invalid market definition: ${why}.`);
    }
    return this.send({
      ...this.envelope(),
      type: 'market.add',
      symbol,
      market: { ...market, symbol },
      actor: 'admin',
    });
  }

  @Post(':symbol/pause')
  @HttpCode(200)
  @ApiDoc(statusDoc('Pause a market (cancels go through, new orders are refused)'))
  pause(@Param('symbol') symbol: string) {
    return this.setStatus(symbol, 'HALT');
  }

  @Post(':symbol/resume')
  @HttpCode(200)
  @ApiDoc(statusDoc('Resume a paused market'))
  resume(@Param('symbol') symbol: string) {
    return this.setStatus(symbol, 'TRADING');
  }

  @Post(':symbol/delist')
  @HttpCode(200)
  @ApiDoc(statusDoc('Delist a market (final; open orders are canceled)'))
  delist(@Param('symbol') symbol: string) {
    return this.setStatus(symbol, 'CLOSE');
  }

  private setStatus(raw: string, status: MarketStatus) {
    const market = nativeMarket(this.markets, raw);
    return this.send({
      ...this.envelope(),
      type: 'market.status',
      symbol: market.symbol,
      status,
      actor: 'admin',
    });
  }

  private envelope() {
    return { id: `admin/${randomUUID()}`, v: 1 as const, time: Date.now() };
  }

  private async send(cmd: EngineCommand) {
    let reply: Reply;
    try {
      reply = (
        await this.bus.request<Reply>(TOPICS.engineCommands.name, cmd.symbol, cmd, {
          timeoutMs: this.config.UPSTREAM_TIMEOUT_MS,
        })
      ).value;
    } catch (e) {
      if (!(e instanceof BusTimeoutError)) throw e;
      // Published: the engine applies it when it catches up; the audit says the outcome is unknown.
      if (e.published)
        await this.audit.append({
          actor: 'admin',
          action: cmd.type,
          payload: { commandId: cmd.id, symbol: cmd.symbol, outcome: 'unknown' },
        });
      throw nativeUnanswered(e.published, 'the matching engine');
    }
    await this.audit.append({
      actor: 'admin',
      action: cmd.type,
      payload: {
        commandId: cmd.id,
        symbol: cmd.symbol,
        ok: reply.ok,
        ...(reply.error ? { error: reply.error } : {}),
      },
    });
    if (!reply.ok)
      throw nativeRefusalOf(reply.error ?? { reason: 'INTERNAL_ERROR', msg: 'refused without a reason' });
    return reply.result;
  }
}
