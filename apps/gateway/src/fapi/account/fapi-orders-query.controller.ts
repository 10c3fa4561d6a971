import { Controller, Get } from '@nestjs/common';
import { FapiError, type RawParams, required, scalar } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { Caller, type FapiCaller, FapiParams, Signed } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { AccountHistory } from './account-history';
import { AccountReader } from './account-reader';
import { orderRef } from '../orders/order-params';
import { limitParam, timeParam, uuidParam } from './history-params';
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
  async openOrders(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<OrderView[]> {
    const symbol = scalar(params, 'symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    const { orders } = await this.reader.load(caller.address);
    return orders.filter((o) => !market || o.symbol === market.symbol).map(orderView);
  }

  @Get('openOrder')
  @Signed({ type: 'USER_DATA', weight: 1 })
  async openOrder(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<OrderView> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const ref = orderRef(params);
    const snapshot = await this.reader.load(caller.address);
    const order = this.history.openOrder(snapshot, market.symbol, ref);
    if (!order) throw noSuchOrder();
    return order;
  }

  @Get('order')
  @Signed({ type: 'USER_DATA', weight: 1 })
  async order(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<OrderView> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const ref = orderRef(params);
    const snapshot = await this.reader.load(caller.address);
    const order = await this.history.findOrder(snapshot, caller.userId, market.symbol, ref);
    if (!order) throw noSuchOrder();
    return order;
  }

  @Get('allOrders')
  @Signed({ type: 'USER_DATA', weight: 5 })
  async allOrders(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<OrderView[]> {
    const market = fapiMarket(this.markets, required(params, 'symbol'));
    const query = {
      symbol: market.symbol,
      orderId: uuidParam(params, 'orderId'),
      startTime: timeParam(params, 'startTime'),
      endTime: timeParam(params, 'endTime'),
      limit: limitParam(params, 500, 1000),
    };
    const snapshot = await this.reader.load(caller.address);
    return this.history.allOrders(snapshot, caller.userId, query);
  }
}
