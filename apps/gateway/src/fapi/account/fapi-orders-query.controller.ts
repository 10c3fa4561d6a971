import { Controller, Get } from '@nestjs/common';
import { FapiError, type FapiErrorName, type FapiFields, fapiParam as P, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';
import { FapiOrder } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { OPTIONAL_SYMBOL } from '../market/market-params';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountHistory } from './account-history';
import { AccountReader } from './account-reader';
import { orderRef } from '../orders/order-params';
import { ALL_ORDERS_PARAMS, ORDER_REF_PARAMS } from './history-params';

const ONE_ORDER = { symbol: P.symbol(), ...ORDER_REF_PARAMS };
const ERRORS: FapiErrorName[] = ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL'];
import { orderView, type OrderView } from './order-view';

function noSuchOrder(): FapiError {
  return new FapiError('NO_SUCH_ORDER', 'Order does not exist.');
}

/** Querying orders: open ones from the live account, closed ones from the hot store and Postgres. */
@Controller('fapi/v1')
export class FapiOrdersQueryController {
  constructor(
    private readonly reader: AccountReader,
    private readonly history: AccountHistory,
    private readonly markets: MarketRegistry,
  ) {}

  @Get('openOrders')
  @Signed({ type: 'USER_DATA', weight: (p) => (scalar(p, 'symbol') ? 1 : 40) })
  @ApiDoc({
    tag: 'account',
    summary: 'Open orders',
    response: z.array(FapiOrder),
    errors: ['INVALID_SYMBOL'],
  })
  async openOrders(
    @Caller() caller: FapiCaller,
    @FapiInput(OPTIONAL_SYMBOL) q: FapiFields<typeof OPTIONAL_SYMBOL>,
  ): Promise<OrderView[]> {
    const symbol = q.get('symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const { orders } = await this.reader.load(caller.address);
    return orders.filter((o) => !market || o.symbol === market.symbol).map(orderView);
  }

  @Get('openOrder')
  @Signed({ type: 'USER_DATA', weight: 1 })
  @ApiDoc({
    tag: 'account',
    summary: 'One open order',
    response: FapiOrder,
    errors: [...ERRORS, 'NO_SUCH_ORDER'],
  })
  async openOrder(
    @Caller() caller: FapiCaller,
    @FapiInput(ONE_ORDER) q: FapiFields<typeof ONE_ORDER>,
  ): Promise<OrderView> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const ref = orderRef(q);
    const snapshot = await this.reader.load(caller.address);
    const order = this.history.openOrder(snapshot, market.symbol, ref);
    if (!order) throw noSuchOrder();
    return order;
  }

  @Get('order')
  @Signed({ type: 'USER_DATA', weight: 1 })
  @ApiDoc({
    tag: 'account',
    summary: 'One order, open or done',
    response: FapiOrder,
    errors: [...ERRORS, 'NO_SUCH_ORDER'],
  })
  async order(
    @Caller() caller: FapiCaller,
    @FapiInput(ONE_ORDER) q: FapiFields<typeof ONE_ORDER>,
  ): Promise<OrderView> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const ref = orderRef(q);
    const snapshot = await this.reader.load(caller.address);
    const order = await this.history.findOrder(snapshot, caller.userId, market.symbol, ref);
    if (!order) throw noSuchOrder();
    return order;
  }

  @Get('allOrders')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({ tag: 'account', summary: 'All orders of a symbol', response: z.array(FapiOrder), errors: ERRORS })
  async allOrders(
    @Caller() caller: FapiCaller,
    @FapiInput(ALL_ORDERS_PARAMS) q: FapiFields<typeof ALL_ORDERS_PARAMS>,
  ): Promise<OrderView[]> {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const query = {
      symbol: market.symbol,
      orderId: q.get('orderId'),
      startTime: q.get('startTime'),
      endTime: q.get('endTime'),
      limit: q.get('limit'),
    };
    const snapshot = await this.reader.load(caller.address);
    return this.history.allOrders(snapshot, caller.userId, query);
  }
}
