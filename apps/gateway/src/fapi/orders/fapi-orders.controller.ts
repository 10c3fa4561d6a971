import { randomUUID } from 'node:crypto';
import { Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import {
  FapiError,
  type OrderRecord,
  parseNewOrder,
  type RawParams,
  required,
  scalar,
} from '@perp/contracts';
import { checkOrderShape, checkTriggerOrder, isTriggerOrderType, MarketRegistry, Money } from '@perp/domain';
import { Caller, type FapiCaller, FapiParams, Signed } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountReader } from '../account/account-reader';
import { fapiRefusal } from '../../outcomes/fapi-outcomes';
import { fapiOrder, fapiResult } from '../../risk/fapi-outcome';
import { RiskClient } from '../../risk/risk-client';
import { batchOrderCount } from '../../rate-limits/rate-limit-rules';
import {
  batchEntryParams,
  checkTick,
  jsonArrayParam,
  MAX_BATCH_CANCELS,
  MAX_BATCH_ORDERS,
  newOrderCommand,
  orderRef,
  positiveDecimal,
} from './order-params';

type Wire = Omit<OrderRecord, 'user'>;
type BatchError = { code: number; msg: string };

/**
 * FAPI order entry: each request becomes a command to the user's risk shard, which checks margin,
 * forwards to the symbol's engine shard and answers after settling the order's own fills.
 */
@Controller('fapi/v1')
export class FapiOrdersController {
  constructor(
    private readonly risk: RiskClient,
    private readonly markets: MarketRegistry,
    private readonly reader: AccountReader,
  ) {}

  @Post('order')
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  @HttpCode(200)
  async newOrder(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<Wire> {
    return this.place(caller, params);
  }

  /** Validates like New Order and sends nothing (Binance answers `{}`). */
  @Post('order/test')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  async testOrder(
    @Caller() caller: FapiCaller,
    @FapiParams() params: RawParams,
  ): Promise<Record<string, never>> {
    const req = parseNewOrder(params);
    const market = fapiMarket(this.markets, req.symbol);
    newOrderCommand(req, market, caller.address, randomUUID());
    // The rules that need no margin: reference price, lot, notional, client id, trigger already met.
    const { account, marks } = await this.reader.snapshot(caller.address, [market.symbol]);
    const markPrices = (symbol: string) => marks.get(symbol);
    const shape = { ...req, orderId: '', stopPrice: req.stopPrice ?? new Money(0) };
    const r = isTriggerOrderType(req.type)
      ? checkTriggerOrder(account, market, { ...shape, type: req.type }, markPrices)
      : checkOrderShape(account, market, shape, markPrices);
    if (!r.ok) throw fapiRefusal({ reason: r.reason, msg: r.message });
    return {};
  }

  @Delete('order')
  @Signed({ type: 'TRADE', weight: 1 })
  async cancel(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<Wire> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const ref = orderRef(params);
    return this.order(
      fapiResult(
        await this.risk.send({ type: 'order.cancel', user: caller.address, symbol: market.symbol, ...ref }),
      ),
    );
  }

  /** Modify (Binance's PUT): new price and total quantity of a resting LIMIT order. */
  @Put('order')
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  async amend(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<Wire> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const ref = orderRef(params);
    const side = required(params, 'side');
    if (side !== 'BUY' && side !== 'SELL') throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'Invalid side.');
    const quantity = positiveDecimal(params, 'quantity');
    const price = positiveDecimal(params, 'price');
    checkTick(market, 'price', price);
    return this.order(
      fapiResult(
        await this.risk.send({
          type: 'order.amend',
          user: caller.address,
          symbol: market.symbol,
          ...ref,
          side,
          price: price.toFixed(),
          quantity: quantity.toFixed(),
        }),
      ),
    );
  }

  @Post('batchOrders')
  @Signed({ type: 'TRADE', weight: 5, orders: batchOrderCount })
  @HttpCode(200)
  async batch(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<(Wire | BatchError)[]> {
    const entries = jsonArrayParam(params, 'batchOrders', MAX_BATCH_ORDERS);
    const out: (Wire | BatchError)[] = [];
    // In order, one at a time: one failure does not abort the rest.
    for (const entry of entries)
      out.push(await this.settled(() => this.place(caller, batchEntryParams(entry))));
    return out;
  }

  @Delete('batchOrders')
  @Signed({ type: 'TRADE', weight: 1 })
  async cancelBatch(
    @Caller() caller: FapiCaller,
    @FapiParams() params: RawParams,
  ): Promise<(Wire | BatchError)[]> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const byId = scalar(params, 'orderIdList');
    const refs = (
      byId !== undefined && byId !== ''
        ? jsonArrayParam(params, 'orderIdList', MAX_BATCH_CANCELS).map((id) => ({ orderId: String(id) }))
        : jsonArrayParam(params, 'origClientOrderIdList', MAX_BATCH_CANCELS).map((id) => ({
            origClientOrderId: String(id),
          }))
    ) as RawParams[];
    const out: (Wire | BatchError)[] = [];
    for (const r of refs)
      out.push(
        await this.settled(async () =>
          this.order(
            fapiResult(
              await this.risk.send({
                type: 'order.cancel',
                user: caller.address,
                symbol: market.symbol,
                ...orderRef(r),
              }),
            ),
          ),
        ),
      );
    return out;
  }

  @Delete('allOpenOrders')
  @Signed({ type: 'TRADE', weight: 1 })
  async cancelAll(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    fapiResult(
      await this.risk.send({ type: 'order.cancelAll', user: caller.address, symbol: market.symbol }),
    );
    return { code: 200, msg: 'The operation of cancel all open order is done.' };
  }

  @Post('leverage')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  async leverage(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const raw = required(params, 'leverage');
    if (!/^\d{1,4}$/.test(raw)) throw new FapiError('INVALID_LEVERAGE', 'Leverage is not valid.');
    return fapiResult(
      await this.risk.send({
        type: 'leverage.set',
        user: caller.address,
        symbol: market.symbol,
        leverage: Number(raw),
      }),
    );
  }

  private async place(caller: FapiCaller, params: RawParams): Promise<Wire> {
    const req = parseNewOrder(params);
    const market = fapiMarket(this.markets, req.symbol);
    const cmd = newOrderCommand(req, market, caller.address, randomUUID());
    return this.order(fapiResult(await this.risk.send(cmd)));
  }

  private order(result: unknown): Wire {
    return fapiOrder(result as OrderRecord);
  }

  private async settled(run: () => Promise<Wire>): Promise<Wire | BatchError> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof FapiError) return { code: e.code, msg: e.message };
      throw e;
    }
  }
}
