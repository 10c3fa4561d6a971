import type { OutcomeReason } from '@perp/contracts';
import { fapiOutcome, fapiRefusal, fapiUnanswered } from './fapi-outcomes';
import { NATIVE_OUTCOMES, nativeRefusalOf, nativeUnanswered } from './native-outcomes';

/** The refusals a FAPI client can meet, with the spec's code and HTTP status (spec: Errors, New Order rules). */
const FAPI_ROWS: [OutcomeReason, number, number][] = [
  ['INVALID_SYMBOL', -1121, 400],
  ['MARKET_NOT_TRADING', -1121, 400],
  ['CONFLICTING_PARAMETERS', -1106, 400],
  ['MISSING_PARAMETER', -1102, 400],
  ['INVALID_ORDER', -1102, 400],
  ['SIDE_MISMATCH', -1102, 400],
  ['INVALID_QUANTITY', -1013, 400],
  ['INVALID_PRICE', -2010, 400],
  ['NO_MARK_PRICE', -2010, 400],
  ['DUPLICATE_ORDER_ID', -2010, 400],
  ['POST_ONLY_WOULD_TAKE', -2010, 400],
  ['OI_CAP_EXCEEDED', -2010, 400],
  ['UNKNOWN_ORDER', -2011, 400],
  ['ORDER_NOT_MODIFIABLE', -2013, 404],
  ['DUPLICATE_CLIENT_ORDER_ID', -2014, 400],
  ['MARGIN_INSUFFICIENT', -2019, 400],
  ['WOULD_TRIGGER_IMMEDIATELY', -2021, 400],
  ['REDUCE_ONLY_REJECTED', -2022, 400],
  ['INVALID_LEVERAGE', -4028, 400],
  ['INTERNAL_ERROR', -1000, 500],
];

describe('FAPI outcomes', () => {
  it.each(FAPI_ROWS)('%s -> %i, HTTP %i', (reason, code, status) => {
    expect(fapiOutcome(reason)).toEqual({ code, status });
    const e = fapiRefusal({ reason, msg: 'why' });
    expect([e.code, e.status, e.message]).toEqual([code, status, 'why']);
  });
});

describe('native outcomes', () => {
  it.each([
    ['INVALID_SYMBOL', 'INVALID_SYMBOL', 400],
    ['MARKET_NOT_TRADING', 'INVALID_SYMBOL', 400],
    ['INVALID_QUANTITY', 'INVALID_AMOUNT', 400],
    ['MARGIN_INSUFFICIENT', 'INSUFFICIENT_BALANCE', 400],
    ['INSUFFICIENT_BALANCE', 'INSUFFICIENT_BALANCE', 400],
    ['INVALID_LEVERAGE', 'INVALID_LEVERAGE', 400],
    ['OI_CAP_EXCEEDED', 'OI_CAP_EXCEEDED', 400],
    ['POST_ONLY_WOULD_TAKE', 'INVALID_REQUEST', 400],
    ['REDUCE_ONLY_REJECTED', 'INVALID_REQUEST', 400],
    ['DUPLICATE_CLIENT_ORDER_ID', 'INVALID_REQUEST', 400],
    ['UNKNOWN_ORDER', 'ORDER_NOT_CANCELLABLE', 400],
    ['ORDER_NOT_MODIFIABLE', 'ORDER_NOT_CANCELLABLE', 400],
    ['HAS_OPEN_ORDERS', 'HAS_OPEN_ORDERS', 400],
    ['HAS_OPEN_POSITIONS', 'HAS_OPEN_POSITIONS', 400],
    ['INVALID_MARGIN_MODE', 'INVALID_MARGIN_MODE', 400],
    ['POSITION_NOT_FOUND', 'NOT_FOUND', 404],
    ['INVALID_VIP_TIER', 'INVALID_REQUEST', 400],
    ['MARKET_NOT_FOUND', 'INVALID_MARKET', 404],
    ['MARKET_EXISTS', 'MARKET_EXISTS', 409],
    ['MARKET_DELISTED', 'MARKET_DELISTED', 409],
    ['INVALID_MARKET_DEFINITION', 'INVALID_REQUEST', 400],
    ['INTERNAL_ERROR', 'INTERNAL_ERROR', 500],
  ] as [OutcomeReason, string, number][])('%s -> %s (%i)', (reason, code, status) => {
    expect(NATIVE_OUTCOMES[reason]).toBe(code);
    expect(nativeRefusalOf({ reason, msg: 'why' })).toMatchObject({ code, status });
  });

  it('keeps the service message, except where native has its own wording', () => {
    expect(nativeRefusalOf({ reason: 'HAS_OPEN_ORDERS', msg: 'cancel open orders first' }).message).toBe(
      'cancel open orders first',
    );
    expect(nativeRefusalOf({ reason: 'MARGIN_INSUFFICIENT', msg: 'margin 5 above 1' }).message).toBe(
      'available balance is too low',
    );
  });
});

describe('no answer in time', () => {
  it("a sent command: the outcome is unknown (FAPI -1007 with Binance's words, native EXECUTION_STATUS_UNKNOWN), HTTP 503", () => {
    const f = fapiUnanswered(true);
    expect([f.code, f.status, f.message]).toEqual([
      -1007,
      503,
      'Timeout waiting for response from backend server. Send status unknown; execution status unknown.',
    ]);
    expect(nativeUnanswered(true)).toMatchObject({ code: 'EXECUTION_STATUS_UNKNOWN', status: 503 });
  });

  it('a command the log never took: not executed (FAPI -1001, native SERVICE_UNAVAILABLE)', () => {
    expect(fapiUnanswered(false)).toMatchObject({ code: -1001, status: 500 });
    expect(nativeUnanswered(false)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });
});
