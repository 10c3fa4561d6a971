// Here, not in libs/domain: the domain depends on nothing with I/O, contracts depend on the domain.
import {
  LEVERAGE_REJECT_REASONS,
  NATIVE_ACCOUNT_REJECT_REASONS,
  PRE_TRADE_REJECT_REASONS,
} from '@perp/domain';
import { FAPI_ERRORS } from './fapi-errors';
import { NATIVE_ERRORS } from './native-errors';

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
