import { FapiError } from '@perp/contracts';
import { nativeFromFapi, nativeRefusal, type RiskRefusal } from './native-refusal';

const refusal = (error: Extract<RiskRefusal, { error: unknown }>['error']): RiskRefusal => ({
  ok: false,
  error,
});

describe('nativeRefusal', () => {
  it('carries the status of the native table and the service message', () => {
    const e = nativeRefusal(refusal({ reason: 'HAS_OPEN_ORDERS', msg: 'cancel open orders first' }));
    expect([e.status, e.code, e.message, e.envelope]).toEqual([
      400,
      'HAS_OPEN_ORDERS',
      'cancel open orders first',
      'flat',
    ]);
    expect(nativeRefusal({ ok: false, unavailable: true, published: false })).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(nativeRefusal({ ok: false, unavailable: true, published: true })).toMatchObject({
      status: 503,
      code: 'EXECUTION_STATUS_UNKNOWN',
    });
    expect(nativeRefusal(refusal({ reason: 'MARGIN_INSUFFICIENT', msg: 'margin 5 above 1' }))).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: 'available balance is too low',
    });
  });

  it('words an open-interest refusal from the engine’s figures, in base units', () => {
    const e = nativeRefusal(
      refusal({
        reason: 'OI_CAP_EXCEEDED',
        msg: 'order would raise open interest above its cap',
        details: { side: 'short', current: '1.0', cap: '1', requestedDelta: '0.50' },
      }),
      'TINYUSDT',
    );
    expect([e.status, e.code, e.message]).toEqual([
      400,
      'OI_CAP_EXCEEDED',
      'order would raise TINYUSDT short open interest above its cap: current=1 cap=1 requested_delta=0.5',
    ]);
  });

  it('maps the FAPI errors of the shared New Order helpers', () => {
    expect(nativeFromFapi(new FapiError('INVALID_QUANTITY', 'q'))).toMatchObject({ code: 'INVALID_AMOUNT' });
    expect(nativeFromFapi(new FapiError('ILLEGAL_CHARS', 'c'))).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
