import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { type AlgoOrderRecord, FapiError, NativeError, type OrderRecord } from '@perp/contracts';
import { MarketRegistry, Money } from '@perp/domain';
import { AccountReader } from '../../fapi/account/account-reader';
import { DepthCache } from '../../fapi/market/depth-cache';
import { PriceAvailability } from '../../fapi/market-stats/price-availability';
import { MAX_DEPTH_LIMIT } from '../../fapi/market/depth-view';
import { AlgoOrderReader } from '../../fapi/orders/algo-order-reader';
import { nativeMarket } from '../../markets/market-lookup';
import { RiskClient, type RiskCommandBody } from '../../risk/risk-client';
import {
  lotQuantity,
  NATIVE_CONDITIONAL_TYPES,
  nativeAlgoCommand,
  type NativeOrderInput,
  nativeOrderCommand,
  parseNativeOrder,
} from './native-order-body';
import {
  type NativeConditionalView,
  nativeConditionalView,
  nativeOrderView,
  nativeRecordView,
  type NativeOrderView,
} from './native-order-view';
import { nativeRefusal } from './native-refusal';
import { OrderLookup } from './order-lookup';
import { type BookLevel, checkSlippage } from './slippage';

/** Conditional (algo) order ids are digits; the others are UUIDs. */
const ALGO_ID = /^\d{1,16}$/;

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
    private readonly algos: AlgoOrderReader,
    private readonly availability: PriceAvailability,
  ) {}

  @Post()
  @HttpCode(200)
  async place(
    @CurrentUser() user: AuthUser,
    @Body() body: unknown,
  ): Promise<NativeOrderView | NativeConditionalView> {
    const input = parseNativeOrder(body, this.markets);
    if (input.type in NATIVE_CONDITIONAL_TYPES) return this.placeConditional(user, input);
    const command = nativeOrderCommand(input, user.address, randomUUID());
    if (input.type === 'MARKET') await this.availability.requireNative(input.market.symbol);
    if (input.maxSlippage) await this.checkSlippage(input);
    return nativeRecordView((await this.send(user, input, command)) as OrderRecord, input.market);
  }

  /**
   * The caller's open orders (NEW, PARTIALLY_FILLED), oldest first, then the waiting conditional
   * ones; `symbol` filters (any alias).
   */
  @Get()
  async open(
    @CurrentUser() user: AuthUser,
    @Query('symbol') symbol?: string,
  ): Promise<(NativeOrderView | NativeConditionalView)[]> {
    const market = symbol === undefined || symbol === '' ? undefined : nativeMarket(this.markets, symbol);
    const { orders } = await this.reader.load(user.address);
    const { live } = await this.algos.all(user.address);
    return [
      ...orders
        .filter((o) => !market || o.symbol === market.symbol)
        .map((o) => nativeRecordView(o, this.markets.find(o.symbol))),
      ...live
        .filter((a) => a.algoStatus === 'NEW' && (!market || a.symbol === market.symbol))
        .map(nativeConditionalView),
    ];
  }

  @Get(':id')
  async one(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
  ): Promise<NativeOrderView | NativeConditionalView> {
    if (ALGO_ID.test(id)) return nativeConditionalView(await this.conditional(user.address, id));
    const found = await this.lookup.own(user.address, id);
    return found.kind === 'open'
      ? nativeRecordView(found.record, this.markets.find(found.record.symbol))
      : nativeOrderView(found.view, this.markets.find(found.view.symbol));
  }

  /** Cancels an open order: 404 ORDER_NOT_FOUND, 403 ORDER_NOT_OWNED, 400 ORDER_NOT_CANCELLABLE. */
  @Delete(':id')
  async cancel(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
  ): Promise<NativeOrderView | NativeConditionalView> {
    if (ALGO_ID.test(id)) {
      await this.conditional(user.address, id);
      const outcome = await this.risk.send({ type: 'algo.cancel', user: user.address, algoId: Number(id) });
      if (!outcome.ok) throw nativeRefusal(outcome);
      return nativeConditionalView(outcome.result as AlgoOrderRecord);
    }
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

  /** A conditional order goes to risk as an algo order, answered as soon as it waits. */
  private async placeConditional(user: AuthUser, input: NativeOrderInput): Promise<NativeConditionalView> {
    const command = nativeAlgoCommand(input, user.address);
    return nativeConditionalView((await this.send(user, input, command)) as AlgoOrderRecord);
  }

  /**
   * Sends an order command, after the leverage when one was sent (set first, as the standing
   * leverage of the symbol); a refusal of either is the native error.
   */
  private async send(user: AuthUser, input: NativeOrderInput, command: RiskCommandBody): Promise<unknown> {
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
    return outcome.result;
  }

  /** The caller's conditional order with this id: 404 ORDER_NOT_FOUND otherwise. */
  private async conditional(user: string, id: string): Promise<AlgoOrderRecord> {
    try {
      return await this.algos.one(user, { algoId: Number(id) });
    } catch (e) {
      if (e instanceof FapiError) throw new NativeError('ORDER_NOT_FOUND', `order ${id} not found`);
      throw e;
    }
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
