import { parseMarket } from '@perp/domain';
import { loadChain } from '../deployment/load-deployment';
import { toExchangeInfoSymbol } from './exchange-info';

const devnet = loadChain(`${__dirname}/../../../../deploy`, 'devnet');
const btc = devnet.markets.find((m) => m.symbol === 'BTCUSDT')!;

const filter = (m: ReturnType<typeof toExchangeInfoSymbol>, type: string) =>
  m.filters.find((f) => f.filterType === type) as Record<string, unknown>;

describe('exchangeInfo filters', () => {
  it('bound price and quantity at 1e9 units, or at what the book holds on a market of very small steps', () => {
    const normal = toExchangeInfoSymbol(btc);
    expect(filter(normal, 'PRICE_FILTER')).toMatchObject({ maxPrice: '1000000000.0', tickSize: '0.1' });
    expect(filter(normal, 'LOT_SIZE')).toMatchObject({ maxQty: '1000000000.000', stepSize: '0.001' });
    const tiny = toExchangeInfoSymbol(
      parseMarket({ ...btc, symbol: 'TINYUSDT', lotSize: '0.000000000001', tickSize: '0.000000000001' }),
    );
    // 2^48 ticks and 2^40 lots: the order book's integer bounds.
    expect(filter(tiny, 'PRICE_FILTER').maxPrice).toBe('281.474976710656');
    expect(filter(tiny, 'LOT_SIZE').maxQty).toBe('1.099511627776');
    expect(filter(tiny, 'MARKET_LOT_SIZE').maxQty).toBe('1.099511627776');
  });
});
