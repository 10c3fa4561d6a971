import { type BaseWallet, Wallet } from 'ethers';
import ccxt from 'ccxt';
import { createKey, json, type HttpResponse, type KeyPair, login } from '@perp/testing';

/** A user of the end-to-end trading tests: a wallet address and an API key of it. */
export interface Trader {
  address: string;
  key: KeyPair;
}

/** Polls `read` until `done` holds or the time is up; returns the last value read. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A wallet logged in over HTTP, with one API key. */
export async function newTrader(
  url: string,
  wallet: BaseWallet = Wallet.createRandom(),
  label = 'trader',
): Promise<Trader> {
  const token = await login(url, wallet);
  return { address: wallet.address.toLowerCase(), key: await createKey(url, token, { label }) };
}

/** An operator request on `/admin/v1`. */
export function adminRequest(
  url: string,
  adminToken: string,
  path: string,
  method: string,
  body?: unknown,
): Promise<HttpResponse> {
  return json(`${url}/admin/v1${path}`, method, body, adminToken);
}

/** Credits `amount` USDT to `address` as the operator; throws unless it is accepted. */
export async function deposit(
  url: string,
  adminToken: string,
  address: string,
  amount: string,
): Promise<void> {
  const r = await adminRequest(url, adminToken, '/deposits', 'POST', { address, asset: 'USDT', amount });
  if (r.status !== 200) throw new Error(`deposit: ${r.status} ${r.text}`);
}

/** ccxt's binanceusdm for `t`, its FAPI pointed at `url` (fetchCurrencies off: it would call spot's sapi). */
export function ccxtClient(url: string, t: Trader): InstanceType<typeof ccxt.binanceusdm> {
  const c = new ccxt.binanceusdm({
    apiKey: t.key.api_key,
    secret: t.key.secret_key,
    options: { fetchCurrencies: false },
  });
  const api = c.urls['api'] as Record<string, string>;
  for (const name of Object.keys(api))
    if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', url);
  return c;
}
