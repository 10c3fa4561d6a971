// The kill-during-burst test's plan, client and checks (the spec keeps only the story).
import { Money, mulberry32 } from '@perp/domain';
import { type HttpResponse, signed } from '@perp/testing';
import type { Trader } from '../trading/trading.harness';

/** One New Order of the burst, with the client id that finds it again after the restart. */
export interface PlannedOrder {
  user: number;
  params: Record<string, string>;
  clientOrderId: string;
}

/**
 * What the client learnt of one request: `acked` (200 with an order), `refused` (an error envelope),
 * `unknown` (sent, then the connection died: the order may or may not exist), `unsent` (never left,
 * or the connection was refused: it cannot exist).
 */
export type Outcome =
  | { kind: 'acked'; orderId: string; status: string; executedQty: string }
  | { kind: 'refused'; status: number; code: unknown }
  | { kind: 'unknown'; error: string }
  | { kind: 'unsent' };

const MARKETS = [
  { symbol: 'BTCUSDT', mid: 50_000, step: 10, lots: ['0.001', '0.002', '0.003', '0.005'] },
  { symbol: 'ETHUSDT', mid: 3_000, step: 1, lots: ['0.010', '0.020', '0.030', '0.050'] },
];
export const BURST_SYMBOLS = MARKETS.map((m) => m.symbol);
export const INDEX_PRICES: Record<string, string> = { BTCUSDT: '50000', ETHUSDT: '3000' };

/**
 * `count` LIMIT GTC orders over two symbols from `traders` users: buys and sells around one
 * price whose bands overlap, so many cross. Every 16th is below one lot, which risk refuses.
 */
export function burstPlan(count: number, traders: number, tag: string, seed: number): PlannedOrder[] {
  // Seeded, so a failing run can be replayed.
  const u32 = mulberry32(seed);
  const next = () => u32() / 2 ** 32;
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
  const out: PlannedOrder[] = [];
  for (let i = 0; i < count; i++) {
    const m = MARKETS[i % MARKETS.length];
    const user = Math.floor(next() * traders);
    const side = next() < 0.5 ? 'BUY' : 'SELL';
    // Buys from mid-4 to mid+2 steps, sells from mid-2 to mid+4: the bands overlap by 5 steps.
    const offset = Math.floor(next() * 7) + (side === 'BUY' ? -4 : -2);
    const quantity = i % 16 === 15 ? '0.0001' : pick(m.lots);
    const clientOrderId = `${tag}-${i}`;
    out.push({
      user,
      clientOrderId,
      params: {
        symbol: m.symbol,
        side,
        type: 'LIMIT',
        timeInForce: 'GTC',
        price: String(m.mid + offset * m.step),
        quantity,
        newClientOrderId: clientOrderId,
        // A queued request must not be refused for its age on a loaded machine.
        recvWindow: '60000',
      },
    });
  }
  return out;
}

export function classify(r: HttpResponse): Outcome {
  if (r.status === 200 && typeof r.body?.orderId === 'string')
    return {
      kind: 'acked',
      orderId: r.body.orderId,
      status: r.body.status,
      executedQty: r.body.executedQty,
    };
  if (r.status >= 400 && r.status < 500) return { kind: 'refused', status: r.status, code: r.body?.code };
  // A 5xx (an upstream timeout) leaves the outcome open, like a dead connection.
  return { kind: 'unknown', error: `HTTP ${r.status}: ${r.text.slice(0, 200)}` };
}

export interface BurstOptions {
  url: string;
  traders: Trader[];
  plan: PlannedOrder[];
  concurrency: number;
  killAfterAcks: number;
  /** Called once, synchronously, when the `killAfterAcks`-th acknowledgement arrives. */
  kill: () => void;
}

/**
 * Sends the plan through `concurrency` workers. On the `killAfterAcks`-th acknowledgement it calls
 * `kill` while the other workers' requests are in flight; workers then stop taking new orders, so
 * the loop ends by itself once every in-flight request has failed or answered.
 */
export async function runBurst(o: BurstOptions): Promise<{ outcomes: Outcome[]; inFlightAtKill: number }> {
  const outcomes: Outcome[] = o.plan.map(() => ({ kind: 'unsent' }));
  let nextIndex = 0;
  let acks = 0;
  let inFlight = 0;
  let killed = false;
  let inFlightAtKill = 0;
  const worker = async () => {
    while (!killed && nextIndex < o.plan.length) {
      const i = nextIndex++;
      const p = o.plan[i];
      inFlight++;
      try {
        const r = await signed(o.url, '/fapi/v1/order', o.traders[p.user].key, {
          method: 'POST',
          params: p.params,
        });
        outcomes[i] = classify(r);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // Refused at connect: nothing reached the server.
        outcomes[i] =
          code === 'ECONNREFUSED' ? { kind: 'unsent' } : { kind: 'unknown', error: String(code ?? e) };
      } finally {
        inFlight--;
      }
      if (outcomes[i].kind === 'acked' && ++acks === o.killAfterAcks && !killed) {
        killed = true;
        inFlightAtKill = inFlight;
        o.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { outcomes, inFlightAtKill };
}

// ---- Reading back after the restart, and the checks (each appends what it finds wrong). ----

export interface OrderRow {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  status: string;
  side: string;
  price: string;
  origQty: string;
  executedQty: string;
}

export interface TradeRow {
  id: string;
  orderId: string;
  symbol: string;
  side: string;
  price: string;
  qty: string;
  commission: string;
}

export interface IncomeRow {
  incomeType: string;
  income: string;
  tradeId: string;
}

export interface PositionRow {
  symbol: string;
  positionAmt: string;
  entryPrice: string;
}

export interface UserState {
  orders: OrderRow[];
  trades: TradeRow[];
  income: IncomeRow[];
  positions: PositionRow[];
  wallet: string;
}

/** The page size of every history read: a user with more rows would make the sums meaningless. */
const PAGE = 1000;

async function get(url: string, t: Trader, path: string, params: Record<string, string> = {}) {
  const r = await signed(url, path, t.key, { params: { ...params, recvWindow: '60000' } });
  if (r.status !== 200) throw new Error(`GET ${path} ${JSON.stringify(params)}: ${r.status} ${r.text}`);
  return r.body;
}

/** Everything the checks need of one user, over FAPI. */
export async function readUser(url: string, t: Trader): Promise<UserState> {
  const orders: OrderRow[] = [];
  const trades: TradeRow[] = [];
  const limit = String(PAGE);
  for (const symbol of BURST_SYMBOLS) {
    orders.push(...(await get(url, t, '/fapi/v1/allOrders', { symbol, limit })));
    trades.push(...(await get(url, t, '/fapi/v1/userTrades', { symbol, limit })));
  }
  const income: IncomeRow[] = await get(url, t, '/fapi/v1/income', { limit });
  if (orders.length >= PAGE || trades.length >= PAGE || income.length >= PAGE)
    throw new Error('history longer than one page: plan fewer orders');
  const positions = ((await get(url, t, '/fapi/v2/positionRisk')) as PositionRow[]).filter(
    (p) => !new Money(p.positionAmt).isZero(),
  );
  const [balance] = await get(url, t, '/fapi/v2/balance');
  return { orders, trades, income, positions, wallet: balance.balance };
}

/** Why an order's status does not fit its filled quantity, if it does not. */
function statusMismatch(o: OrderRow): string | undefined {
  const exec = new Money(o.executedQty);
  const orig = new Money(o.origQty);
  const fits: Record<string, () => boolean> = {
    NEW: () => exec.isZero(),
    PARTIALLY_FILLED: () => exec.gt(0) && exec.lt(orig),
    FILLED: () => exec.eq(orig),
    // Self-trade prevention expires a taker that would trade with its own order.
    EXPIRED: () => exec.lt(orig),
    CANCELED: () => exec.lt(orig),
  };
  return fits[o.status]?.()
    ? undefined
    : `status ${o.status} with executedQty ${o.executedQty} of ${o.origQty}`;
}

const FINAL = new Set(['FILLED', 'EXPIRED', 'CANCELED']);

/** Checks one planned order against the rows found under its client id. */
function checkPlanned(p: PlannedOrder, outcome: Outcome, rows: OrderRow[], problems: string[]): void {
  const where = `${p.clientOrderId} (${outcome.kind})`;
  if (outcome.kind === 'refused' || outcome.kind === 'unsent') {
    if (rows.length > 0) problems.push(`${where}: exists after restart (${rows.length} rows)`);
    return;
  }
  if (rows.length > 1) problems.push(`${where}: ${rows.length} rows after restart`);
  if (outcome.kind === 'unknown') return;
  if (rows.length === 0) {
    problems.push(`${where}: acknowledged as ${outcome.orderId}, missing after restart`);
    return;
  }
  const o = rows[0];
  if (o.orderId !== outcome.orderId)
    problems.push(`${where}: acknowledged as ${outcome.orderId}, found as ${o.orderId}`);
  const { symbol, side, price, quantity } = p.params;
  if (
    o.symbol !== symbol ||
    o.side !== side ||
    !new Money(o.price).eq(price) ||
    !new Money(o.origQty).eq(quantity)
  )
    problems.push(
      `${where}: found ${o.symbol} ${o.side} ${o.origQty}@${o.price}, sent ${side} ${quantity}@${price}`,
    );
  if (new Money(o.executedQty).lt(outcome.executedQty))
    problems.push(`${where}: executedQty ${o.executedQty} below the acknowledged ${outcome.executedQty}`);
  if (FINAL.has(outcome.status) && o.status !== outcome.status)
    problems.push(`${where}: acknowledged ${outcome.status}, found ${o.status}`);
}

/**
 * Orders: each row was sent by its owner, its status fits its fills; each acknowledged order is
 * there once with its id, each refused or unsent one is absent, each unknown one at most once.
 */
export function checkOrders(
  plan: PlannedOrder[],
  outcomes: Outcome[],
  states: UserState[],
  problems: string[],
): void {
  const planned = new Map(plan.map((p) => [p.clientOrderId, p]));
  const rowsByClientId = new Map<string, OrderRow[]>();
  states.forEach((s, u) => {
    for (const o of s.orders) {
      const p = planned.get(o.clientOrderId);
      if (!p || p.user !== u || p.params.symbol !== o.symbol)
        problems.push(`user ${u}: order ${o.orderId} (${o.clientOrderId}) was never sent by this user`);
      const m = statusMismatch(o);
      if (m) problems.push(`user ${u}: order ${o.clientOrderId}: ${m}`);
      rowsByClientId.set(o.clientOrderId, [...(rowsByClientId.get(o.clientOrderId) ?? []), o]);
    }
  });
  plan.forEach((p, i) => checkPlanned(p, outcomes[i], rowsByClientId.get(p.clientOrderId) ?? [], problems));
}

/**
 * Trades: one row per user and trade id, exactly two sides per trade (one buy, one sell, same
 * price and quantity), fills adding up to each order's executedQty, one income row per trade and
 * type, commissions equal to the trades' and positions equal to the sum of the trades.
 * Returns the number of distinct trades.
 */
export function checkTrades(states: UserState[], problems: string[]): number {
  const sides = new Map<string, TradeRow[]>();
  states.forEach((s, u) => {
    const seen = new Set<string>();
    const filled = new Map<string, Money>();
    const position = new Map<string, Money>();
    let commission = new Money(0);
    for (const t of s.trades) {
      if (seen.has(t.id)) problems.push(`user ${u}: trade ${t.id} listed twice`);
      seen.add(t.id);
      sides.set(t.id, [...(sides.get(t.id) ?? []), t]);
      filled.set(t.orderId, (filled.get(t.orderId) ?? new Money(0)).plus(t.qty));
      const signedQty = new Money(t.qty).times(t.side === 'BUY' ? 1 : -1);
      position.set(t.symbol, (position.get(t.symbol) ?? new Money(0)).plus(signedQty));
      commission = commission.plus(t.commission);
    }
    const ids = new Set(s.orders.map((o) => o.orderId));
    for (const id of filled.keys())
      if (!ids.has(id)) problems.push(`user ${u}: trade of unknown order ${id}`);
    for (const o of s.orders)
      if (!(filled.get(o.orderId) ?? new Money(0)).eq(o.executedQty))
        problems.push(`user ${u}: ${o.clientOrderId} executedQty ${o.executedQty} != its trades' sum`);
    const incomeKeys = new Set<string>();
    let commissionIncome = new Money(0);
    for (const i of s.income) {
      const key = `${i.incomeType}:${i.tradeId}`;
      if (incomeKeys.has(key)) problems.push(`user ${u}: income ${key} listed twice`);
      incomeKeys.add(key);
      if (i.incomeType === 'COMMISSION') commissionIncome = commissionIncome.plus(i.income);
    }
    if (!commissionIncome.negated().eq(commission))
      problems.push(
        `user ${u}: commission income ${commissionIncome.toFixed()}, trades ${commission.toFixed()}`,
      );
    for (const symbol of BURST_SYMBOLS) {
      const live = s.positions.find((p) => p.symbol === symbol)?.positionAmt ?? '0';
      const fromTrades = position.get(symbol) ?? new Money(0);
      if (!fromTrades.eq(live))
        problems.push(`user ${u}: ${symbol} position ${live}, trades sum to ${fromTrades.toFixed()}`);
    }
  });
  for (const [id, rows] of sides) {
    const buys = rows.filter((r) => r.side === 'BUY').length;
    if (rows.length !== 2 || buys !== 1 || rows[0].qty !== rows[1].qty || rows[0].price !== rows[1].price)
      problems.push(`trade ${id}: sides ${JSON.stringify(rows)}`);
  }
  return sides.size;
}

/**
 * Money: each wallet is its deposit plus its income; and, valued at any one price per symbol
 * (positions net to zero across these users, so the price drops out), wallets plus positions at
 * cost plus the fees paid equal the deposits. Marks are not used: they are the same for every user
 * only when the gateway knows them. Returns the fees paid.
 */
export function checkMoney(
  states: UserState[],
  deposits: string[],
  tradeCount: number,
  problems: string[],
): Money {
  let left = new Money(0);
  let fees = new Money(0);
  let positions = 0;
  states.forEach((s, u) => {
    const income = s.income.reduce((sum, i) => sum.plus(i.income), new Money(0));
    if (!new Money(deposits[u]).plus(income).eq(s.wallet))
      problems.push(`user ${u}: wallet ${s.wallet} != deposit ${deposits[u]} + income ${income.toFixed()}`);
    left = left.plus(s.wallet);
    for (const p of s.positions) left = left.minus(new Money(p.positionAmt).times(p.entryPrice));
    positions += s.positions.length;
    for (const i of s.income) if (i.incomeType === 'COMMISSION') fees = fees.minus(i.income);
  });
  for (const symbol of BURST_SYMBOLS) {
    const net = states
      .flatMap((s) => s.positions.filter((p) => p.symbol === symbol))
      .reduce((sum, p) => sum.plus(p.positionAmt), new Money(0));
    if (!net.isZero()) problems.push(`${symbol}: positions net to ${net.toFixed()}, not zero`);
  }
  const deposited = deposits.reduce((sum, d) => sum.plus(d), new Money(0));
  // Realized PnL is credited at 8 decimals per fill and entry prices are shown at 8 decimals: at
  // most one unit of the last place per fill and per position. A lost or doubled fill moves the
  // sum by at least its fee, which is far above that.
  const slack = new Money('0.00000001').times(2 * tradeCount + positions);
  const gap = left.plus(fees).minus(deposited);
  if (gap.abs().gt(slack))
    problems.push(
      `money: wallets - positions at cost + fees - deposits = ${gap.toFixed()} (slack ${slack.toFixed()})`,
    );
  return fees;
}
