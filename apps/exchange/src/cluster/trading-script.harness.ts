import { Wallet } from 'ethers';
import { json, type HttpResponse, signed } from '@perp/testing';
import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { deposit, newTrader, type Trader } from '../trading/trading.harness';

export type ScriptTrader = Trader;

export const SCRIPT_USERS = 4;
export const SCRIPT_DEPOSIT = '100000';

/** Fixed wallets, so two runs of the script trade for the same addresses. */
export function scriptWallet(i: number): Wallet {
  return new Wallet(`0x${(i + 1).toString(16).padStart(64, '0')}`);
}

export async function scriptTraders(url: string): Promise<ScriptTrader[]> {
  const out: ScriptTrader[] = [];
  for (let i = 0; i < SCRIPT_USERS; i++) {
    out.push(await newTrader(url, scriptWallet(i), `script-${i}`));
  }
  return out;
}

export type ScriptStep =
  | { kind: 'price'; symbol: string; indexPrice: string }
  | { kind: 'order'; user: number; params: Record<string, string> }
  | { kind: 'cancelAll'; user: number; symbol: string };

/**
 * A fixed trading session over two symbols: makers rest limits, takers cross them with market and
 * limit orders, positions open, grow, flip and close, prices move, some orders are cancelled.
 */
export function tradingScript(): ScriptStep[] {
  const steps: ScriptStep[] = [
    { kind: 'price', symbol: 'BTCUSDT', indexPrice: '50000' },
    { kind: 'price', symbol: 'ETHUSDT', indexPrice: '3000' },
  ];
  const symbols = [
    { symbol: 'BTCUSDT', base: 50000, tick: 10, qty: ['0.010', '0.020', '0.030'] },
    { symbol: 'ETHUSDT', base: 3000, tick: 1, qty: ['0.10', '0.25', '0.40'] },
  ];
  for (let round = 0; round < 12; round++) {
    const s = symbols[round % 2];
    const maker = round % SCRIPT_USERS;
    const taker =
      (round + 1 + (round % 3)) % SCRIPT_USERS === maker
        ? (maker + 2) % SCRIPT_USERS
        : (round + 1 + (round % 3)) % SCRIPT_USERS;
    const makerSide = round % 4 < 2 ? 'SELL' : 'BUY';
    const takerSide = makerSide === 'SELL' ? 'BUY' : 'SELL';
    const drift = (round % 5) - 2;
    const price = String(s.base + drift * s.tick);
    const qty = s.qty[round % 3];
    steps.push({
      kind: 'order',
      user: maker,
      params: { symbol: s.symbol, side: makerSide, type: 'LIMIT', price, quantity: qty, timeInForce: 'GTC' },
    });
    // A second resting order further away, cancelled later: margin frozen and released.
    const away = String(s.base + (makerSide === 'SELL' ? 20 : -20) * s.tick);
    steps.push({
      kind: 'order',
      user: maker,
      params: { symbol: s.symbol, side: makerSide, type: 'LIMIT', price: away, quantity: qty },
    });
    steps.push({
      kind: 'order',
      user: taker,
      params:
        round % 3 === 0
          ? { symbol: s.symbol, side: takerSide, type: 'MARKET', quantity: qty }
          : { symbol: s.symbol, side: takerSide, type: 'LIMIT', price, quantity: qty, timeInForce: 'IOC' },
    });
    if (round % 4 === 3) steps.push({ kind: 'cancelAll', user: maker, symbol: s.symbol });
    if (round === 5) steps.push({ kind: 'price', symbol: 'BTCUSDT', indexPrice: '50500' });
  }
  for (let u = 0; u < SCRIPT_USERS; u++)
    for (const s of symbols) steps.push({ kind: 'cancelAll', user: u, symbol: s.symbol });
  return steps;
}

/** Runs one step; every step waits for its answer, so the engine sees the script's order. */
export async function runStep(
  url: string,
  adminToken: string,
  traders: ScriptTrader[],
  step: ScriptStep,
): Promise<HttpResponse> {
  switch (step.kind) {
    case 'price':
      return json(
        `${url}/admin/v1/prices/${step.symbol}`,
        'POST',
        { indexPrice: step.indexPrice },
        adminToken,
      );
    case 'order':
      return signed(url, '/fapi/v1/order', traders[step.user].key, { method: 'POST', params: step.params });
    case 'cancelAll':
      return signed(url, '/fapi/v1/allOpenOrders', traders[step.user].key, {
        method: 'DELETE',
        params: { symbol: step.symbol },
      });
  }
}

export async function fund(url: string, adminToken: string, traders: ScriptTrader[]): Promise<void> {
  for (const t of traders) await deposit(url, adminToken, t.address, SCRIPT_DEPOSIT);
}

/**
 * Waits until each user's risk partition answers, with an order risk refuses (below one lot:
 * -1013), which changes nothing.
 */
export async function untilEveryRiskPartitionAnswers(url: string, traders: ScriptTrader[]): Promise<void> {
  for (let user = 0; user < traders.length; user++) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await runStep(url, TEST_ADMIN_TOKEN, traders, {
        kind: 'order',
        user,
        params: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '0.0001' },
      });
      if (r.status === 400) break;
      if (Date.now() > deadline) throw new Error(`risk partition of user ${user}: ${r.status} ${r.text}`);
    }
  }
}
