import { randomUUID } from 'node:crypto';
import { Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import {
  FapiError,
  type FapiErrorName,
  FapiFields,
  fapiIssue,
  fapiParam as P,
  mandatoryMessage,
  NEW_ORDER_PARAMS,
  type OrderRecord,
  parseNewOrder,
} from '@perp/contracts';
import { checkOrderShape, checkTriggerOrder, isTriggerOrderType, MarketRegistry, Money } from '@perp/domain';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';
import { Empty, FapiBatchResult, FapiOrder, Success } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { ORDER_REF_PARAMS } from '../account/history-params';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountReader } from '../account/account-reader';
import { PriceAvailability } from '../market-stats/price-availability';
import { fapiRefusal } from '../../outcomes/fapi-outcomes';
import { fapiResult } from '../../risk/fapi-outcome';
import { orderView, type OrderView } from '../account/order-view';
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

/** An order as FAPI answers it (the Order view every endpoint shares). */
type Wire = OrderView;

const NEW_ORDER_ERRORS: FapiErrorName[] = [
  'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  'ILLEGAL_CHARS',
  'PARAMETER_NOT_REQUIRED',
  'INVALID_DATA_FOR_PARAMETER',
  'INVALID_SYMBOL',
  'INVALID_QUANTITY',
  'NEW_ORDER_REJECTED',
  'MARGIN_INSUFFICIENT',
  'ORDER_WOULD_TRIGGER_IMMEDIATELY',
  'REDUCEONLY_REJECT',
  'MAX_OPEN_ORDER_EXCEEDED',
  'API_KEY_FORMAT',
  'TIMEOUT',
  'DISCONNECTED',
];
const SYMBOL = { symbol: P.symbol() };
const CANCEL_PARAMS = { ...SYMBOL, ...ORDER_REF_PARAMS };
const AMEND_PARAMS = {
  ...CANCEL_PARAMS,
  side: P.oneOf(['BUY', 'SELL'], 'INVALID_DATA_FOR_PARAMETER', 'Must be the order’s side'),
  quantity: positiveDecimal('New total quantity'),
  price: positiveDecimal('New price'),
};
const BATCH_PARAMS = {
  batchOrders: jsonArrayParam(
    `JSON array of 1 to ${MAX_BATCH_ORDERS} objects with New Order's parameters (values as strings)`,
    MAX_BATCH_ORDERS,
  ),
};
const ORDER_ID_LIST = `JSON array of up to ${MAX_BATCH_CANCELS} order ids (also \`[id1,id2]\`, ids unquoted)`;
const CLIENT_ID_LIST = `JSON array of up to ${MAX_BATCH_CANCELS} client order ids (when no order id list is sent)`;
const CANCEL_BATCH_PARAMS = {
  ...SYMBOL,
  orderIdList: jsonArrayParam(ORDER_ID_LIST, MAX_BATCH_CANCELS, true).optional(),
  origClientOrderIdList: jsonArrayParam(CLIENT_ID_LIST, MAX_BATCH_CANCELS).optional(),
  // Binance takes these lower-case spellings too, and ccxt's cancelOrders sends them.
  orderidlist: jsonArrayParam(
    `${ORDER_ID_LIST}; the spelling ccxt sends`,
    MAX_BATCH_CANCELS,
    true,
  ).optional(),
  origclientorderidlist: jsonArrayParam(
    `${CLIENT_ID_LIST}; the spelling ccxt sends`,
    MAX_BATCH_CANCELS,
  ).optional(),
};
const LEVERAGE_PARAMS = {
  ...SYMBOL,
  leverage: z
    .string()
    .regex(/^\d{1,4}$/, fapiIssue('INVALID_LEVERAGE', 'Leverage is not valid.'))
    .transform(Number)
    .meta({ description: '1 to the market maximum' }),
};
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
    private readonly availability: PriceAvailability,
  ) {}

  @Post('order')
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'orders',
    summary: 'New order',
    description: 'Answers after the engine handled the order and its own fills were settled.',
    response: FapiOrder,
    errors: NEW_ORDER_ERRORS,
  })
  async newOrder(
    @Caller() caller: FapiCaller,
    @FapiInput(NEW_ORDER_PARAMS) q: FapiFields<typeof NEW_ORDER_PARAMS>,
  ): Promise<Wire> {
    return this.place(caller, q.raw);
  }

  /** Validates like New Order and sends nothing (Binance answers `{}`). */
  @Post('order/test')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'orders',
    summary: 'Test a new order (validated, not sent)',
    response: Empty,
    errors: NEW_ORDER_ERRORS.filter((e) => e !== 'TIMEOUT'),
  })
  async testOrder(
    @Caller() caller: FapiCaller,
    @FapiInput(NEW_ORDER_PARAMS) q: FapiFields<typeof NEW_ORDER_PARAMS>,
  ): Promise<Record<string, never>> {
    const req = parseNewOrder(q.raw);
    const market = fapiMarket(this.markets, req.symbol);
    newOrderCommand(req, market, caller.address, randomUUID());
    if (req.type === 'MARKET') await this.availability.requireFapi(market.symbol);
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
  @ApiDoc({
    tag: 'orders',
    summary: 'Cancel an order',
    response: FapiOrder,
    errors: [
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'ILLEGAL_CHARS',
      'INVALID_SYMBOL',
      'UNKNOWN_ORDER',
      'TIMEOUT',
    ],
  })
  async cancel(
    @Caller() caller: FapiCaller,
    @FapiInput(CANCEL_PARAMS) q: FapiFields<typeof CANCEL_PARAMS>,
  ): Promise<Wire> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const ref = orderRef(q);
    return this.order(
      fapiResult(
        await this.risk.send({ type: 'order.cancel', user: caller.address, symbol: market.symbol, ...ref }),
      ),
    );
  }

  /** Modify (Binance's PUT): new price and total quantity of a resting LIMIT order. */
  @Put('order')
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: 'Modify a resting LIMIT order (price and total quantity)',
    response: FapiOrder,
    errors: [
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'ILLEGAL_CHARS',
      'INVALID_DATA_FOR_PARAMETER',
      'INVALID_SYMBOL',
      'INVALID_QUANTITY',
      'UNKNOWN_ORDER',
      'MARGIN_INSUFFICIENT',
      'TIMEOUT',
    ],
  })
  async amend(
    @Caller() caller: FapiCaller,
    @FapiInput(AMEND_PARAMS) q: FapiFields<typeof AMEND_PARAMS>,
  ): Promise<Wire> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const ref = orderRef(q);
    const side = q.get('side');
    const quantity = q.get('quantity');
    const price = q.get('price');
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
  @ApiDoc({
    tag: 'orders',
    summary: `Place up to ${MAX_BATCH_ORDERS} orders`,
    description: 'In order, one at a time: a failed entry answers its `{code, msg}` and the rest go on.',
    response: FapiBatchResult,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED'],
  })
  async batch(
    @Caller() caller: FapiCaller,
    @FapiInput(BATCH_PARAMS) q: FapiFields<typeof BATCH_PARAMS>,
  ): Promise<(Wire | BatchError)[]> {
    const entries = q.get('batchOrders');
    const out: (Wire | BatchError)[] = [];
    // In order, one at a time: one failure does not abort the rest.
    for (const entry of entries)
      out.push(await this.settled(() => this.place(caller, batchEntryParams(entry))));
    return out;
  }

  @Delete('batchOrders')
  @Signed({ type: 'TRADE', weight: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: `Cancel up to ${MAX_BATCH_CANCELS} orders`,
    response: FapiBatchResult,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL'],
  })
  async cancelBatch(
    @Caller() caller: FapiCaller,
    @FapiInput(CANCEL_BATCH_PARAMS) q: FapiFields<typeof CANCEL_BATCH_PARAMS>,
  ): Promise<(Wire | BatchError)[]> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const byId = q.get('orderIdList') ?? q.get('orderidlist');
    const refs = byId
      ? byId.map((id) => ({ orderId: String(id) }))
      : (
          q.get('origClientOrderIdList') ??
          q.get('origclientorderidlist') ??
          missing('origClientOrderIdList')
        ).map((id) => ({
          origClientOrderId: String(id),
        }));
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
                ...orderRef(new FapiFields(ORDER_REF_PARAMS, r)),
              }),
            ),
          ),
        ),
      );
    return out;
  }

  @Delete('allOpenOrders')
  @Signed({ type: 'TRADE', weight: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: 'Cancel every open order of a symbol',
    response: Success,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL', 'TIMEOUT'],
  })
  async cancelAll(@Caller() caller: FapiCaller, @FapiInput(SYMBOL) q: FapiFields<typeof SYMBOL>) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    fapiResult(
      await this.risk.send({ type: 'order.cancelAll', user: caller.address, symbol: market.symbol }),
    );
    return { code: 200, msg: 'The operation of cancel all open order is done.' };
  }

  @Post('leverage')
  @Signed({ type: 'TRADE', weight: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'settings',
    summary: 'Set the leverage of a symbol',
    response: z.object({ symbol: z.string(), leverage: z.number().int(), maxNotionalValue: z.string() }),
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL', 'INVALID_LEVERAGE', 'TIMEOUT'],
  })
  async leverage(
    @Caller() caller: FapiCaller,
    @FapiInput(LEVERAGE_PARAMS) q: FapiFields<typeof LEVERAGE_PARAMS>,
  ) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const leverage = q.get('leverage');
    return fapiResult(
      await this.risk.send({
        type: 'leverage.set',
        user: caller.address,
        symbol: market.symbol,
        leverage,
      }),
    );
  }

  private async place(caller: FapiCaller, params: FapiFields<typeof NEW_ORDER_PARAMS>['raw']): Promise<Wire> {
    const req = parseNewOrder(params);
    const market = fapiMarket(this.markets, req.symbol);
    const cmd = newOrderCommand(req, market, caller.address, randomUUID());
    if (req.type === 'MARKET') await this.availability.requireFapi(market.symbol);
    return this.order(fapiResult(await this.risk.send(cmd)));
  }

  /** The engine's answer (an order record) as the Order view every order endpoint answers with. */
  private order(result: unknown): Wire {
    return orderView(result as OrderRecord);
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

/** Neither list sent: -1102 naming the fallback list, as before. */
function missing(name: string): never {
  throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', mandatoryMessage(name));
}
