import { type Market, parseMarket } from '../markets/market';
import { orderLimits } from '../markets/order-limits';
import { Money } from '../money/money';
import { BTC, ETH, FEE_TIERS, lookup, SOL } from './__fixtures__/markets';
import { AccountBook } from './account-book';
import type { OrderType, Side } from './order';
import { floorToLot, quantityFromQuote, type PreTradeRequest, type PreTradeResult } from './pre-trade';

const m = (v: string) => new Money(v);

function setup(deposit = '10000', markets: Market[] = [BTC, ETH, SOL]) {
  const book = new AccountBook({ markets: lookup(...markets), feeTiers: FEE_TIERS });
  book.setMarkPrice('BTCUSDT', m('30000'));
  book.setMarkPrice('SOLUSDT', m('100'));
  book.deposit('u1', m(deposit), 'd1');
  return book;
}

let seq = 0;
function order(
  type: OrderType,
  fields: Partial<Record<'quantity' | 'quoteOrderQty' | 'price' | 'stopPrice', string>> & {
    side?: Side;
    symbol?: string;
    clientOrderId?: string;
    reduceOnly?: boolean;
  },
): PreTradeRequest {
  const id = `o${++seq}`;
  return {
    orderId: id,
    clientOrderId: fields.clientOrderId ?? `c${id}`,
    symbol: fields.symbol ?? 'BTCUSDT',
    side: fields.side ?? 'BUY',
    type,
    reduceOnly: fields.reduceOnly,
    quantity: fields.quantity === undefined ? undefined : m(fields.quantity),
    quoteOrderQty: fields.quoteOrderQty === undefined ? undefined : m(fields.quoteOrderQty),
    price: fields.price === undefined ? undefined : m(fields.price),
    stopPrice: fields.stopPrice === undefined ? undefined : m(fields.stopPrice),
  };
}

function accepted(r: PreTradeResult) {
  if (!r.ok) throw new Error(`rejected ${r.reason}: ${r.message}`);
  return r;
}
const reason = (r: PreTradeResult) => (r.ok ? 'ACCEPTED' : r.reason);

/** Gives u1 a position through an unbacked (liquidation-like) fill. */
function givePosition(book: AccountBook, side: Side, qty: string, price = '30000') {
  book.settleFill({
    user: 'u1',
    symbol: 'BTCUSDT',
    side,
    qty: m(qty),
    price: m(price),
    liquidity: 'TAKER',
    closeQty: m('0'),
    tradeId: `seed-${++seq}`,
    time: seq,
  });
}

describe('quoteOrderQty to quantity, per order type', () => {
  it.each([
    // type, fields, reference price, quantity = floor(1000 / ref / 0.001) x 0.001
    ['LIMIT', { price: '30000' }, '30000', '0.033'],
    ['STOP', { price: '29000', stopPrice: '29500' }, '29000', '0.034'],
    ['TAKE_PROFIT', { price: '31000', stopPrice: '30500' }, '31000', '0.032'],
    ['STOP_MARKET', { stopPrice: '25000' }, '25000', '0.04'],
    ['TAKE_PROFIT_MARKET', { stopPrice: '40000' }, '40000', '0.025'],
    ['MARKET', {}, '30000', '0.033'], // mark price
  ] as const)('%s uses its reference price', (type, prices, ref, qty) => {
    const r = accepted(setup().placeOrder('u1', order(type, { ...prices, quoteOrderQty: '1000' })));
    expect(r.referencePrice.toFixed()).toBe(ref);
    expect(r.quantity.toFixed()).toBe(qty);
    expect(r.notional.toFixed()).toBe(m(qty).times(ref).toFixed());
  });

  it('floors exactly, on the lot of the market', () => {
    expect(quantityFromQuote(m('1000'), m('30000'), '0.001').toFixed()).toBe('0.033');
    expect(quantityFromQuote(m('1000'), m('100'), '0.01').toFixed()).toBe('10');
    expect(quantityFromQuote(m('999.99'), m('100'), '0.01').toFixed()).toBe('9.99');
    expect(floorToLot(m('0.0339'), '0.001').toFixed()).toBe('0.033');
  });

  it('converts on SOL with its own lot size', () => {
    const r = accepted(
      setup().placeOrder('u1', order('MARKET', { symbol: 'SOLUSDT', quoteOrderQty: '55.555' })),
    );
    expect(r.quantity.toFixed()).toBe('0.55'); // 55.555 / 100 = 0.55555 -> 55 lots of 0.01
  });
});

describe('quantity and notional', () => {
  it('floors a quantity that is not a lot multiple silently', () => {
    const r = accepted(setup().placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.0339' })));
    expect(r.quantity.toFixed()).toBe('0.033');
    expect(r.order.remaining.toFixed()).toBe('0.033');
  });

  it.each([
    ['0.005', '0.0339', '0.03'],
    ['5', '12.7', '10'],
    ['1', '12.7', '12'],
    ['0.01', '7.999', '7.99'],
  ])(
    'floors to a lot of %s (a power of ten or not) as floor(q / lot) x lot',
    (lotSize, quantity, floored) => {
      const market = parseMarket({
        ...BTC,
        symbol: 'LOTUSDT',
        baseAsset: 'LOT',
        lotSize,
        minOrderSizeUsd: '1',
      });
      const book = setup('1000000', [market]);
      const r = accepted(
        book.placeOrder('u1', order('LIMIT', { symbol: 'LOTUSDT', price: '100', quantity })),
      );
      expect(r.quantity.toFixed()).toBe(floored);
      expect(r.quantity.eq(floorToLot(m(quantity), lotSize))).toBe(true);
    },
  );

  it.each([
    ['below one lot', { quantity: '0.0009' }],
    ['zero', { quantity: '0' }],
    ['negative', { quantity: '-1' }],
    ['a quoteOrderQty below one lot', { quoteOrderQty: '29' }],
    ['a zero quoteOrderQty', { quoteOrderQty: '0' }],
  ])('rejects %s', (_, size) => {
    expect(reason(setup().placeOrder('u1', order('LIMIT', { price: '30000', ...size })))).toBe(
      'INVALID_QUANTITY',
    );
  });

  it('bounds the notional by [min, max] order size, LIMIT at its price', () => {
    const book = setup('1000000');
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '1000', quantity: '0.004' })))).toBe(
      'INVALID_QUANTITY',
    ); // 4 < 5
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '1000', quantity: '0.005' })))).toBe(
      'ACCEPTED',
    ); // 5: inclusive
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '170' })))).toBe(
      'INVALID_QUANTITY',
    ); // 5.1M > 5M
  });

  it("refuses what the book's integers cannot hold on a market of very small steps, as exchangeInfo's maxima say", () => {
    const tiny = parseMarket({
      ...BTC,
      symbol: 'TINYUSDT',
      baseAsset: 'TINY',
      lotSize: '0.000000000001',
      tickSize: '0.000000000001',
    });
    // 2^40 lots and 2^48 ticks.
    expect(orderLimits(tiny).maxQty.toFixed()).toBe('1.099511627776');
    expect(orderLimits(tiny).maxPrice.toFixed()).toBe('281.474976710656');
    expect(orderLimits(BTC).maxQty.toFixed()).toBe('1000000000');
    const book = setup('10000', [tiny]);
    const place = (price: string, quantity: string, stopPrice?: string) =>
      book.placeOrder(
        'u1',
        order(stopPrice ? 'STOP' : 'LIMIT', { symbol: 'TINYUSDT', price, quantity, stopPrice }),
      );
    expect(place('5', '2')).toMatchObject({
      ok: false,
      reason: 'INVALID_QUANTITY',
      message: 'quantity above the maximum 1.099511627776',
    });
    expect(place('1000', '0.1')).toMatchObject({
      ok: false,
      reason: 'INVALID_PRICE',
      message: 'price above the maximum 281.474976710656',
    });
    expect(place('5', '1', '300')).toMatchObject({
      ok: false,
      reason: 'INVALID_PRICE',
      message: 'stopPrice above the maximum 281.474976710656',
    });
    expect(reason(place('5', '1'))).toBe('ACCEPTED');
  });

  it('measures MARKET orders at the mark price and LIMIT orders at their own price', () => {
    const book = setup();
    book.setMarkPrice('BTCUSDT', m('4000'));
    expect(reason(book.placeOrder('u1', order('MARKET', { quantity: '0.001' })))).toBe('INVALID_QUANTITY'); // 4
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '6000', quantity: '0.001' })))).toBe(
      'ACCEPTED',
    ); // 6
  });
});

describe('reference price and parameters', () => {
  it.each([
    ['LIMIT', { price: '0' }],
    ['LIMIT', { price: '-1' }],
    ['STOP', { price: '0', stopPrice: '1' }],
    ['STOP_MARKET', { stopPrice: '0' }],
    ['TAKE_PROFIT_MARKET', { stopPrice: '-5' }],
  ] as const)('rejects a %s whose reference price is <= 0 with INVALID_PRICE', (type, prices) => {
    expect(reason(setup().placeOrder('u1', order(type, { ...prices, quantity: '1' })))).toBe('INVALID_PRICE');
  });

  it('rejects a MARKET order while the symbol has no mark price', () => {
    expect(reason(setup().placeOrder('u1', order('MARKET', { symbol: 'ETHUSDT', quantity: '1' })))).toBe(
      'NO_MARK_PRICE',
    );
  });

  it('needs exactly one of quantity and quoteOrderQty, and the prices of the type', () => {
    const book = setup();
    expect(
      reason(book.placeOrder('u1', order('LIMIT', { price: '1', quantity: '1', quoteOrderQty: '1' }))),
    ).toBe('CONFLICTING_PARAMETERS');
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '1' })))).toBe('MISSING_PARAMETER');
    expect(reason(book.placeOrder('u1', order('LIMIT', { quantity: '1' })))).toBe('MISSING_PARAMETER');
    expect(reason(book.placeOrder('u1', order('STOP', { price: '1', quantity: '1' })))).toBe(
      'MISSING_PARAMETER',
    );
    expect(reason(book.placeOrder('u1', order('STOP_MARKET', { quantity: '1' })))).toBe('MISSING_PARAMETER');
  });

  it('rejects unknown symbols with INVALID_SYMBOL, untradeable ones with MARKET_NOT_TRADING', () => {
    const book = setup('10000', [BTC, { ...ETH, status: 'HALT' }]);
    expect(reason(book.placeOrder('u1', order('MARKET', { symbol: 'DOGEUSDT', quantity: '1' })))).toBe(
      'INVALID_SYMBOL',
    );
    expect(
      reason(book.placeOrder('u1', order('LIMIT', { symbol: 'ETHUSDT', price: '2000', quantity: '1' }))),
    ).toBe('MARKET_NOT_TRADING');
  });
});

describe('clientOrderId', () => {
  it('is unique among active orders and reusable once the order is terminal', () => {
    const book = setup();
    const first = accepted(
      book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'x' })),
    );
    expect(
      reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'x' }))),
    ).toBe('DUPLICATE_CLIENT_ORDER_ID');
    // Another user may use the same id.
    book.deposit('u2', m('1000'), 'd2');
    expect(
      reason(book.placeOrder('u2', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'x' }))),
    ).toBe('ACCEPTED');
    book.releaseOrder('u1', first.order.orderId); // cancelled: terminal
    expect(
      reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'x' }))),
    ).toBe('ACCEPTED');
  });
  it('is free again once the order is filled', () => {
    const book = setup();
    const r = accepted(
      book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'y' })),
    );
    book.settleFill({
      user: 'u1',
      orderId: r.order.orderId,
      symbol: 'BTCUSDT',
      side: 'BUY',
      qty: m('0.01'),
      price: m('30000'),
      liquidity: 'MAKER',
      closeQty: m('0'),
      tradeId: 'fill-y',
      time: 1,
    });
    expect(
      reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.01', clientOrderId: 'y' }))),
    ).toBe('ACCEPTED');
  });
});

describe('margin', () => {
  it('freezes notional / leverage x 1.005 at the default leverage', () => {
    const book = setup();
    const r = accepted(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.1' })));
    expect(r.leverage).toBe(20);
    expect(r.frozenMargin.toFixed()).toBe('150.75'); // 3000 / 20 x 1.005
    expect(book.balances('u1').orderMargin.toFixed()).toBe('150.75');
    expect(book.balances('u1').availableBalance.toFixed()).toBe('9849.25');
  });

  it('uses the standing per-symbol leverage, clamped to the market maximum at placement', () => {
    let btc = BTC;
    const book = new AccountBook({
      markets: (s) => (s === 'BTCUSDT' ? btc : undefined),
      feeTiers: FEE_TIERS,
    });
    book.deposit('u1', m('10000'), 'd');
    expect(book.setLeverage('u1', 'BTCUSDT', 10).ok).toBe(true);
    expect(
      accepted(
        book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.1' })),
      ).frozenMargin.toFixed(),
    ).toBe('301.5');
    expect(book.setLeverage('u1', 'BTCUSDT', 100).ok).toBe(true);
    btc = { ...BTC, maxLeverage: 50 }; // an operator lowers the maximum
    const r = accepted(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.1' })));
    expect(r.leverage).toBe(50);
    expect(r.order.leverage).toBe(50);
    expect(r.frozenMargin.toFixed()).toBe('60.3'); // 3000 / 50 x 1.005
    expect(book.account('u1').leverage(btc)).toBe(100); // the standing value is kept
  });

  it('accepts an order that takes exactly the available balance and rejects one unit more', () => {
    const book = setup('150.75');
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.1' })))).toBe(
      'ACCEPTED',
    );
    expect(book.balances('u1').availableBalance.toFixed()).toBe('0');
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.001' })))).toBe(
      'MARGIN_INSUFFICIENT',
    );
  });

  it('rejects with MARGIN_INSUFFICIENT and freezes nothing', () => {
    const book = setup('100');
    expect(reason(book.placeOrder('u1', order('LIMIT', { price: '30000', quantity: '0.1' })))).toBe(
      'MARGIN_INSUFFICIENT',
    );
    expect(book.balances('u1').orderMargin.toFixed()).toBe('0');
    expect(book.account('u1').openOrders()).toHaveLength(0);
  });
});

describe('closing orders', () => {
  it('margin only the part that opens beyond the position, after resting orders on the same side', () => {
    const book = setup();
    givePosition(book, 'BUY', '0.1'); // long 0.1 @ 30000, margin 150
    const close = accepted(
      book.placeOrder('u1', order('LIMIT', { side: 'SELL', price: '30000', quantity: '0.1' })),
    );
    expect(close.openingQty.toFixed()).toBe('0');
    expect(close.frozenMargin.toFixed()).toBe('0');
    // The resting sell already claims the long: this one opens in full.
    const second = accepted(
      book.placeOrder('u1', order('LIMIT', { side: 'SELL', price: '30000', quantity: '0.1' })),
    );
    expect(second.openingQty.toFixed()).toBe('0.1');
    expect(second.frozenMargin.toFixed()).toBe('150.75');
    book.releaseOrder('u1', close.order.orderId);
    book.releaseOrder('u1', second.order.orderId);
    // Partly closing: 0.05 opens beyond the 0.1 long.
    const beyond = accepted(
      book.placeOrder('u1', order('LIMIT', { side: 'SELL', price: '30000', quantity: '0.15' })),
    );
    expect(beyond.openingQty.toFixed()).toBe('0.05');
    expect(beyond.frozenMargin.toFixed()).toBe('75.375'); // 1500 / 20 x 1.005
    // Adding to the long is margined in full.
    const add = accepted(
      book.placeOrder('u1', order('LIMIT', { side: 'BUY', price: '30000', quantity: '0.1' })),
    );
    expect(add.frozenMargin.toFixed()).toBe('150.75');
  });

  it('never margins a reduceOnly order', () => {
    const book = setup();
    const r = accepted(
      book.placeOrder('u1', order('MARKET', { side: 'SELL', quantity: '1', reduceOnly: true })),
    );
    expect(r.frozenMargin.toFixed()).toBe('0');
  });

  it('accepts a closing order when the available balance is negative, but not an opening one', () => {
    const book = setup('200');
    givePosition(book, 'BUY', '0.1'); // margin 150, taker fee 1.5: available 48.5
    book.setMarkPrice('BTCUSDT', m('29000')); // -100 unrealized
    expect(book.balances('u1').availableBalance.toFixed()).toBe('-51.5');
    expect(reason(book.placeOrder('u1', order('MARKET', { side: 'SELL', quantity: '0.1' })))).toBe(
      'ACCEPTED',
    );
    expect(reason(book.placeOrder('u1', order('MARKET', { side: 'BUY', quantity: '0.001' })))).toBe(
      'MARGIN_INSUFFICIENT',
    );
  });
});
