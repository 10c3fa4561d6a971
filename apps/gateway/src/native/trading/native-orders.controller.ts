import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { NativeError, type OrderRecord } from '@perp/contracts';
import { MarketRegistry, Money } from '@perp/domain';
import { AccountReader } from '../../fapi/account/account-reader';
import { DepthCache } from '../../fapi/market/depth-cache';
import { MAX_DEPTH_LIMIT } from '../../fapi/market/depth-view';
import { nativeMarket } from '../../markets/market-lookup';
import { RiskClient } from '../../risk/risk-client';
import {
  lotQuantity,
  type NativeOrderInput,
  nativeOrderCommand,
  parseNativeOrder,
} from './native-order-body';
import { nativeOrderView, nativeRecordView, type NativeOrderView } from './native-order-view';
import { nativeRefusal } from './native-refusal';
import { OrderLookup } from './order-lookup';
import { type BookLevel, checkSlippage } from './slippage';

/**
 * Native order entry and queries (JWT). Orders go to the caller's risk shard exactly as FAPI's do
 * (same command builder); errors are native codes in the flat `{error, code}` envelope, the one
 * the JWT guard and the framework use too, so every answer of these routes has one error shape.
 */
@Controller('api/v1/orders')
@UseGuards(JwtAuthGuard)
export class NativeOrdersController {
  constructor(
    private readonly risk: RiskClient,
    private readonly markets: MarketRegistry,
    private readonly reader: AccountReader,
    private readonly lookup: OrderLookup,
    private readonly depth: DepthCache,
  ) {}

  @Post()
  @HttpCode(200)
  async place(@CurrentUser() user: AuthUser, @Body() body: unknown): Promise<NativeOrderView> {
    const input = parseNativeOrder(body, this.markets);
    const command = nativeOrderCommand(input, user.address, randomUUID());
    if (input.maxSlippage) await this.checkSlippage(input);
    if (input.leverage !== undefined) {
      const set = await this.risk.send({
        type: 'leverage.set',
        user: user.address,
        symbol: input.market.symbol,
        leverage: input.leverage,
      });
      if (!set.ok) throw nativeRefusal(set);
    }
    const outcome = await this.risk.send(command);
    if (!outcome.ok) throw nativeRefusal(outcome, input.market.symbol);
    return nativeRecordView(outcome.result as OrderRecord, input.market);
  }

  /** The caller's open orders (NEW, PARTIALLY_FILLED), oldest first; `symbol` filters (any alias). */
  @Get()
  async open(@CurrentUser() user: AuthUser, @Query('symbol') symbol?: string): Promise<NativeOrderView[]> {
    const market = symbol === undefined || symbol === '' ? undefined : nativeMarket(this.markets, symbol);
    const { orders } = await this.reader.load(user.address);
    return orders
      .filter((o) => !market || o.symbol === market.symbol)
      .map((o) => nativeRecordView(o, this.markets.find(o.symbol)));
  }

  @Get(':id')
  async one(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<NativeOrderView> {
    const found = await this.lookup.own(user.address, id);
    return found.kind === 'open'
      ? nativeRecordView(found.record, this.markets.find(found.record.symbol))
      : nativeOrderView(found.view, this.markets.find(found.view.symbol));
  }

  /** Cancels an open order: 404 ORDER_NOT_FOUND, 403 ORDER_NOT_OWNED, 400 ORDER_NOT_CANCELLABLE. */
  @Delete(':id')
  async cancel(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<NativeOrderView> {
    const found = await this.lookup.own(user.address, id);
    if (found.kind === 'closed') throw notCancellable(id, found.view.status);
    const { record } = found;
    const outcome = await this.risk.send({
      type: 'order.cancel',
      user: user.address,
      symbol: record.symbol,
      orderId: record.orderId,
    });
    if (outcome.ok) return nativeRecordView(outcome.result as OrderRecord, this.markets.find(record.symbol));
    if ('unavailable' in outcome) throw nativeRefusal(outcome);
    // The engine no longer held it (filled or expired in the meantime): say what it became.
    const now = await this.lookup.locate(user.address, id);
    if (now?.kind === 'closed') throw notCancellable(id, now.view.status);
    throw nativeRefusal(outcome);
  }

  /**
   * max_slippage: the fill is simulated against the opposite side of the projected L2 book (the
   * one GET /fapi/v1/depth serves) and priced against the mark price. A side served whole (fewer
   * levels than the deepest answer) is complete: what it cannot fill expires, so only its levels
   * count; behind a full side more levels may hide, so an order larger than it is refused.
   */
  private async checkSlippage(input: NativeOrderInput): Promise<void> {
    const symbol = input.market.symbol;
    const mark = (await this.reader.markPrices([symbol])).get(symbol);
    if (!mark) throw new NativeError('PRICE_DATA_UNAVAILABLE', `no mark price for ${symbol} yet`);
    const book = await this.depth.book(input.market);
    const side = input.side === 'BUY' ? book.asks : book.bids;
    const levels: BookLevel[] = side.map(([price, qty]) => ({
      price: new Money(price),
      qty: new Money(qty),
    }));
    const verdict = checkSlippage({
      side: input.side,
      quantity: lotQuantity(input.market, input.quantity),
      mark,
      maxSlippage: input.maxSlippage!,
      levels,
      completeDepth: side.length < MAX_DEPTH_LIMIT,
    });
    if (!verdict.ok) throw new NativeError('SLIPPAGE_EXCEEDED', verdict.message);
  }
}

function notCancellable(id: string, status: string): NativeError {
  return new NativeError(
    'ORDER_NOT_CANCELLABLE',
    `order ${id} is ${status.toLowerCase()} and can no longer be canceled`,
  );
}
