import { z } from 'zod';
import { NATIVE_ORDER_BODY } from '../native/trading/native-order-body';
import { NativeOrdersController } from '../native/trading/native-orders.controller';
import { API_DOC, type ApiDocSpec } from './api-doc';
import { NativeAnyOrder } from './native-responses';

// The native order routes' documentation, applied from here so that the controller (which the
// slippage work changes) stays as it is. POST parses its body with NATIVE_ORDER_BODY
// (parseNativeOrder), the schema documented here.

const orderId = {
  id: z.string().meta({ description: 'Order id (UUID), or a conditional order id (digits)' }),
};

const DOCS: Record<string, ApiDocSpec> = {
  place: {
    tag: 'orders',
    summary: 'Place a limit, market, stop or take-profit order',
    description:
      'Answers after the engine handled the order and its own fills were settled (read-your-writes). ' +
      'The stop_* and take_profit_* types are conditional: they answer at once with the conditional order ' +
      '(id of digits, status new) and wait for the mark price to reach trigger_price. ' +
      'When `leverage` is sent it is set first, as the standing leverage of the symbol, and stays set even ' +
      'if the order is then refused.',
    body: NATIVE_ORDER_BODY,
    response: NativeAnyOrder,
    errors: [
      'INVALID_SYMBOL',
      'INVALID_AMOUNT',
      'PRICE_REQUIRED',
      'INVALID_LEVERAGE',
      'SLIPPAGE_EXCEEDED',
      'INSUFFICIENT_BALANCE',
      'OI_CAP_EXCEEDED',
      'INVALID_REQUEST',
      'SERVICE_UNAVAILABLE',
      'EXECUTION_STATUS_UNKNOWN',
      'PRICE_DATA_UNAVAILABLE',
      'CIRCUIT_OPEN',
    ],
  },
  open: {
    tag: 'orders',
    summary: 'Your open orders, oldest first, then your waiting conditional orders',
    query: { symbol: z.string().optional().meta({ description: 'Only this market (any alias)' }) },
    response: z.array(NativeAnyOrder),
    errors: ['INVALID_MARKET'],
  },
  one: {
    tag: 'orders',
    summary: 'One of your orders, open or done (a conditional one by its id of digits)',
    path: orderId,
    response: NativeAnyOrder,
    errors: ['ORDER_NOT_OWNED', 'ORDER_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  cancel: {
    tag: 'orders',
    summary: 'Cancel an open order, or a waiting conditional one',
    path: orderId,
    response: NativeAnyOrder,
    errors: ['ORDER_NOT_CANCELLABLE', 'ORDER_NOT_OWNED', 'ORDER_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
};

/** Puts the docs on the handlers, as `@ApiDoc` would (a renamed handler fails loudly here). */
export function documentNativeOrders(): void {
  const proto = NativeOrdersController.prototype as unknown as Record<string, object>;
  for (const [name, doc] of Object.entries(DOCS)) {
    const handler = proto[name];
    if (typeof handler !== 'function')
      throw new Error(`NativeOrdersController.${name} is gone: update native-orders-doc.ts`);
    Reflect.defineMetadata(API_DOC, doc, handler);
  }
}
