// Test-only import: domain code must not depend on contracts, the tables must still agree.
import { FAPI_ERRORS, NATIVE_ERRORS } from '@perp/contracts';
import { LEVERAGE_REJECT_REASONS, NATIVE_ACCOUNT_REJECT_REASONS, PRE_TRADE_REJECT_REASONS } from './reasons';

describe('reject reasons', () => {
  it.each([...PRE_TRADE_REJECT_REASONS, ...LEVERAGE_REJECT_REASONS])('%s is a FAPI error name', (name) => {
    expect(Object.keys(FAPI_ERRORS)).toContain(name);
  });

  it('map to the spec codes of the New Order rules', () => {
    const code = (n: keyof typeof FAPI_ERRORS) => FAPI_ERRORS[n].code;
    expect(code('INVALID_QUANTITY')).toBe(-1013);
    expect(code('NEW_ORDER_REJECTED')).toBe(-2010);
    expect(code('API_KEY_FORMAT')).toBe(-2014);
    expect(code('MARGIN_INSUFFICIENT')).toBe(-2019);
    expect(code('INVALID_LEVERAGE')).toBe(-4028);
    expect(code('ORDER_WOULD_TRIGGER_IMMEDIATELY')).toBe(-2021);
  });

  it.each([...NATIVE_ACCOUNT_REJECT_REASONS])('%s is a native error code', (name) => {
    expect(Object.keys(NATIVE_ERRORS)).toContain(name);
  });
});
