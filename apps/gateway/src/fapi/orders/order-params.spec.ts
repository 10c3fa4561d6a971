import { FapiError } from '@perp/contracts';
import { type Market, Money } from '@perp/domain';
import { checkTick } from './order-params';

describe('checkTick (price filter)', () => {
  const market = (tickSize: string) => ({ tickSize }) as Market;
  const onGrid = (tickSize: string, price: string) => {
    try {
      checkTick(market(tickSize), 'price', new Money(price));
      return true;
    } catch (e) {
      if (e instanceof FapiError) return false;
      throw e;
    }
  };

  it.each([
    ['0.1', '65000.1', true],
    ['0.1', '65000.10', true],
    ['0.1', '65000.15', false],
    ['0.010', '1.01', true],
    ['0.010', '1.011', false],
    ['1', '65000', true],
    ['1', '65000.5', false],
    // Not a power of ten: the remainder decides.
    ['0.5', '65000.5', true],
    ['0.5', '65000.2', false],
    ['5', '65005', true],
    ['5', '65001', false],
    ['10', '65010', true],
    ['10', '65001', false],
  ])('tick %s, price %s: on the grid %s', (tick, price, expected) => {
    expect(onGrid(tick, price)).toBe(expected);
  });

  it('names the parameter and the tick in the -1013 message; no price, no check', () => {
    expect(() => checkTick(market('0.1'), 'stopPrice', new Money('1.23'))).toThrow(
      'Filter failure: stopPrice must be a multiple of 0.1.',
    );
    expect(() => checkTick(market('0.1'), 'price', undefined)).not.toThrow();
  });
});
