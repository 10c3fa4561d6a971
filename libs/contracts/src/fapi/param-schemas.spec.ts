import { FapiError } from '../errors/exceptions';
import { fapiParam, readFapiParam } from './param-schemas';

describe('readFapiParam', () => {
  const price = fapiParam.decimal('Price');
  const limit = fapiParam.limit(100, 1000);

  it('gives the same value for the same text, parsed once (a Money is shared: it is immutable)', () => {
    const first = readFapiParam(price, { price: '65000.10' }, 'price');
    expect(first.toFixed()).toBe('65000.1');
    expect(readFapiParam(price, { price: '65000.10' }, 'price')).toBe(first);
    expect(readFapiParam(price, { price: '65000.2' }, 'price').toFixed()).toBe('65000.2');
    expect(readFapiParam(limit, { limit: '5000' }, 'limit')).toBe(1000);
    expect(readFapiParam(limit, { limit: '5000' }, 'limit')).toBe(1000);
  });

  it('answers the same error every time for a bad text, and defaults are not taken for sent values', () => {
    for (let i = 0; i < 2; i++) {
      expect(() => readFapiParam(price, { price: '1e5' }, 'price')).toThrow(FapiError);
      expect(() => readFapiParam(limit, { limit: '0' }, 'limit')).toThrow(/must be at least 1/);
    }
    expect(readFapiParam(limit, {}, 'limit')).toBe(100);
    expect(readFapiParam(limit, { limit: '7' }, 'limit')).toBe(7);
  });

  it('stays right past its bound (emptied when full)', () => {
    const qty = fapiParam.decimal('Quantity');
    for (let i = 0; i < 1000; i++)
      expect(readFapiParam(qty, { quantity: `${i}.5` }, 'quantity').toFixed()).toBe(`${i}.5`);
    expect(readFapiParam(qty, { quantity: '0.5' }, 'quantity').toFixed()).toBe('0.5');
  });
});
