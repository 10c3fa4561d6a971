import ccxt from 'ccxt';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, newTrader, type Trader } from '../trading/trading.harness';

/** The embedded exchange with `count` funded traders and a BTCUSDT index price of 50000. */
export async function tradingExchange(
  count: number,
  amount: string,
  env: Record<string, string> = {},
): Promise<{ ex: InProcessExchange; traders: Trader[] }> {
  const ex = await startInProcessExchange(env);
  const traders: Trader[] = [];
  for (let i = 0; i < count; i++) {
    const t = await newTrader(ex.url);
    await deposit(ex.url, ex.adminToken, t.address, amount);
    traders.push(t);
  }
  const price = await adminRequest(ex.url, ex.adminToken, '/prices/BTCUSDT', 'POST', { indexPrice: '50000' });
  if (price.status !== 200) throw new Error(`index price: ${price.status} ${price.text}`);
  return { ex, traders };
}

/** ccxt pro binanceusdm pointed at the exchange by URL only (REST and WebSocket), markets loaded. */
export async function binanceUsdmPro(
  url: string,
  trader?: Trader,
): Promise<InstanceType<typeof ccxt.pro.binanceusdm>> {
  const keys = trader ? { apiKey: trader.key.api_key, secret: trader.key.secret_key } : {};
  // fetchCurrencies off: with keys, loadMarkets would also call Binance's spot wallet (sapi).
  const c = new ccxt.pro.binanceusdm({ ...keys, options: { fetchCurrencies: false } });
  // ccxt schedules the listen key's keepalive (20 min ahead) with a bare setTimeout that close() never
  // clears: left as is, it holds the test process open after the last test. Unref'd, it cannot.
  c.delay = (timeout: number, method: unknown, ...args: unknown[]) => {
    setTimeout(() => c.spawn(method, ...args), timeout).unref();
  };
  const api = c.urls['api'] as Record<string, unknown>;
  for (const [name, value] of Object.entries(api))
    if (typeof value === 'string' && name.startsWith('fapi'))
      api[name] = value.replace('https://fapi.binance.com', url);
  (api['ws'] as Record<string, unknown>)['future'] = `${url.replace(/^http/, 'ws')}/ws`;
  // ccxt needs its plain-HTTP agent for ws:// URLs.
  await c.loadHttpProxyAgent();
  await c.loadMarkets();
  return c;
}
