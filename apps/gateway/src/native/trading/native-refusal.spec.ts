import { FapiError } from '@perp/contracts';
import { Money } from '@perp/domain';
import {
  isOiCapRefusal,
  nativeCodeOf,
  nativeFromFapi,
  nativeRefusal,
  oiCapDetails,
  oiCapMessage,
  type RiskRefusal,
} from './native-refusal';

const refusal = (code: number | string, msg = 'm', reason?: string): RiskRefusal => ({
  ok: false,
  code,
  msg,
  ...(reason ? { reason } : {}),
});

describe('nativeCodeOf', () => {
  it.each([
    [refusal(-1121), 'INVALID_SYMBOL'],
    [refusal(-1013), 'INVALID_AMOUNT'],
    [refusal(-2019, 'x', 'MARGIN_INSUFFICIENT'), 'INSUFFICIENT_BALANCE'],
    [refusal(-4028, 'x', 'INVALID_LEVERAGE'), 'INVALID_LEVERAGE'],
    [refusal(-2010, 'OI_CAP_EXCEEDED'), 'OI_CAP_EXCEEDED'],
    [refusal(-2010, 'x', 'OI_CAP_EXCEEDED'), 'OI_CAP_EXCEEDED'],
    [refusal(-2010, 'POST_ONLY_WOULD_TAKE'), 'INVALID_REQUEST'],
    [refusal(-2010, 'Reference price unknown.', 'NEW_ORDER_REJECTED'), 'INVALID_REQUEST'],
    [refusal(-2022, 'REDUCE_ONLY_REJECTED'), 'INVALID_REQUEST'],
    [refusal(-2014), 'INVALID_REQUEST'],
    [refusal(-2011), 'ORDER_NOT_CANCELLABLE'],
    [refusal(-1001), 'SERVICE_UNAVAILABLE'],
    [refusal(-1000), 'INTERNAL_ERROR'],
    [refusal('HAS_OPEN_ORDERS'), 'HAS_OPEN_ORDERS'],
    [refusal('HAS_OPEN_POSITIONS'), 'HAS_OPEN_POSITIONS'],
    [refusal('INVALID_MARGIN_MODE'), 'INVALID_MARGIN_MODE'],
    [refusal('INSUFFICIENT_BALANCE'), 'INSUFFICIENT_BALANCE'],
    [refusal('INVALID_AMOUNT'), 'INVALID_AMOUNT'],
    [refusal('NOT_FOUND'), 'NOT_FOUND'],
    [refusal('SOMETHING_NEW'), 'INVALID_REQUEST'],
    [{ ok: false, unavailable: true } as RiskRefusal, 'SERVICE_UNAVAILABLE'],
  ])('%j -> %s', (r, code) => {
    expect(nativeCodeOf(r)).toBe(code);
  });
});

describe('nativeRefusal', () => {
  it('carries the status of the native table and the service message', () => {
    const e = nativeRefusal(refusal('HAS_OPEN_ORDERS', 'cancel open orders first'));
    expect([e.status, e.code, e.message, e.envelope]).toEqual([
      400,
      'HAS_OPEN_ORDERS',
      'cancel open orders first',
      'flat',
    ]);
    expect(nativeRefusal({ ok: false, unavailable: true })).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(nativeRefusal(refusal(-2019, 'Margin is insufficient.'))).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: 'available balance is too low',
    });
  });

  it('maps the FAPI errors of the shared New Order helpers', () => {
    expect(nativeFromFapi(new FapiError('INVALID_QUANTITY', 'q'))).toMatchObject({ code: 'INVALID_AMOUNT' });
    expect(nativeFromFapi(new FapiError('ILLEGAL_CHARS', 'c'))).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('open-interest cap refusal', () => {
  const m = (v: string) => new Money(v);

  it('is recognised by -2010 with the engine reason only', () => {
    expect(isOiCapRefusal(refusal(-2010, 'OI_CAP_EXCEEDED'))).toBe(true);
    expect(isOiCapRefusal(refusal(-2010, 'POST_ONLY_WOULD_TAKE'))).toBe(false);
    expect(isOiCapRefusal(refusal(-2019, 'OI_CAP_EXCEEDED'))).toBe(false);
    expect(isOiCapRefusal({ ok: false, unavailable: true })).toBe(false);
  });

  it('reports the order side’s cap when that one is over, else the other side', () => {
    const oi = { long: m('8'), short: m('8') };
    const own = oiCapDetails('XUSDT', 'BUY', oi, { long: m('10'), short: m('20') }, m('3'));
    expect(own).toMatchObject({ side: 'long', current: m('8'), cap: m('10') });
    const other = oiCapDetails('XUSDT', 'BUY', oi, { long: m('20'), short: m('10') }, m('3'));
    expect(other).toMatchObject({ side: 'short', cap: m('10') });
    expect(oiCapMessage(own)).toBe(
      'order would raise XUSDT long open interest above its cap: current=8 cap=10 requested_delta=3',
    );
  });
});
