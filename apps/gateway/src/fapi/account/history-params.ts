import { fapiParam as P } from '@perp/contracts';
import { OPTIONAL_SYMBOL } from '../market/market-params';

const window = {
  startTime: P.time('From this time').optional(),
  endTime: P.time('Up to this time').optional(),
};

/** orderId (a UUID, else -1100) or origClientOrderId (the client id alphabet, else -1100). */
export const ORDER_REF_PARAMS = {
  orderId: P.uuid('Order id (UUID); or send origClientOrderId').optional(),
  origClientOrderId: P.clientOrderId('Your client order id').optional(),
};

export const USER_TRADES_PARAMS = {
  symbol: P.symbol(),
  fromId: P.uuid('Trades from this trade id on').optional(),
  ...window,
  limit: P.limit(500, 1000),
};

export const ALL_ORDERS_PARAMS = {
  symbol: P.symbol(),
  orderId: P.uuid('Orders from this order id on').optional(),
  ...window,
  limit: P.limit(500, 1000),
};

export const FUNDING_FEE_PARAMS = { ...OPTIONAL_SYMBOL, ...window, limit: P.limit(100, 1000) };
