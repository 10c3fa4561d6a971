import { z } from 'zod';
import { Money, parseDecimal } from '../money/money';
// Types only: ledger.ts imports this module.
import type { LedgerAccount, SystemAccount } from './ledger';
import { MARGIN_MODES, type MarginMode } from './margin-mode';
import { ORDER_TYPES, type AccountOrder, type OrderType, type Side } from './order';
import type { AccountPosition } from './position';

/**
 * Plain JSON forms of an account and of a risk shard's book, for snapshots (restore, then replay)
 * and for projecting one account to a reader. Money is a decimal string in plain notation
 * (`Money#toFixed()`: exact, never a float); maps are arrays of entries, in the maps' insertion
 * order, because restored iteration order is observable (positions, open orders, accounts).
 */
export const ACCOUNT_STATE_VERSION = 1;

/** A decimal string in plain notation, e.g. "-12.5"; no exponent. */
export type MoneyString = string;

export interface AccountPositionState {
  id: string;
  symbol: string;
  size: MoneyString;
  cost: MoneyString;
  margin: MoneyString;
  collateral: MoneyString;
  leverage: number;
  openedAt: number;
}

export interface AccountOrderState {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: Side;
  type: OrderType;
  reduceOnly: boolean;
  referencePrice: MoneyString;
  quantity: MoneyString;
  remaining: MoneyString;
  leverage: number;
  frozen: MoneyString;
}

export interface AccountState {
  v: typeof ACCOUNT_STATE_VERSION;
  user: string;
  walletBalance: MoneyString;
  marginMode: MarginMode;
  vipTier: number;
  /** [symbol, leverage] the user set; other symbols use the market default. */
  leverages: [string, number][];
  positions: AccountPositionState[];
  /** Open orders with the margin they still hold frozen. */
  orders: AccountOrderState[];
  /** [clientOrderId, orderId] of the open orders (the duplicate-clientOrderId index). */
  clientOrderIds: [string, string][];
}

export interface LedgerState {
  /** Every ledger account that has been posted to: wallets, FEE, INSURANCE, CLEARING. */
  balances: [LedgerAccount, MoneyString][];
  totalDeposits: MoneyString;
}

export interface AccountBookState {
  v: typeof ACCOUNT_STATE_VERSION;
  accounts: AccountState[];
  ledger: LedgerState;
  /** [symbol, mark price]. */
  marks: [string, MoneyString][];
}

export function toMoneyString(m: Money): MoneyString {
  return m.toFixed();
}

/** Throws on anything but a plain decimal string (the schemas below reject those first). */
export function fromMoneyString(s: MoneyString): Money {
  const m = parseDecimal(s);
  if (!m) throw new Error(`not a decimal string: ${s}`);
  return m;
}

export function positionToState(p: AccountPosition): AccountPositionState {
  return {
    id: p.id,
    symbol: p.symbol,
    size: toMoneyString(p.size),
    cost: toMoneyString(p.cost),
    margin: toMoneyString(p.margin),
    collateral: toMoneyString(p.collateral),
    leverage: p.leverage,
    openedAt: p.openedAt,
  };
}

export function positionFromState(s: AccountPositionState): AccountPosition {
  return {
    id: s.id,
    symbol: s.symbol,
    size: fromMoneyString(s.size),
    cost: fromMoneyString(s.cost),
    margin: fromMoneyString(s.margin),
    collateral: fromMoneyString(s.collateral),
    leverage: s.leverage,
    openedAt: s.openedAt,
  };
}

export function orderToState(o: AccountOrder): AccountOrderState {
  return {
    orderId: o.orderId,
    clientOrderId: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    reduceOnly: o.reduceOnly,
    referencePrice: toMoneyString(o.referencePrice),
    quantity: toMoneyString(o.quantity),
    remaining: toMoneyString(o.remaining),
    leverage: o.leverage,
    frozen: toMoneyString(o.frozen),
  };
}

export function orderFromState(s: AccountOrderState): AccountOrder {
  return {
    orderId: s.orderId,
    clientOrderId: s.clientOrderId,
    symbol: s.symbol,
    side: s.side,
    type: s.type,
    reduceOnly: s.reduceOnly,
    referencePrice: fromMoneyString(s.referencePrice),
    quantity: fromMoneyString(s.quantity),
    remaining: fromMoneyString(s.remaining),
    leverage: s.leverage,
    frozen: fromMoneyString(s.frozen),
  };
}

// ------------------------------------------------------------------ validation

const decimal = z.string().refine((v) => parseDecimal(v) !== undefined, 'a plain decimal string');
const nonNegative = z
  .string()
  .refine((v) => parseDecimal(v)?.gte(0) === true, 'a non-negative decimal string');
const positive = z.string().refine((v) => parseDecimal(v)?.gt(0) === true, 'a positive decimal string');
const leverage = z.number().int().min(1);

const SYSTEM_ACCOUNTS: readonly string[] = ['FEE', 'INSURANCE', 'CLEARING'] satisfies SystemAccount[];
const ledgerAccount = z.custom<LedgerAccount>(
  (v) => typeof v === 'string' && (SYSTEM_ACCOUNTS.includes(v) || v.startsWith('wallet:')),
  'FEE, INSURANCE, CLEARING or wallet:<user>',
);

const positionSchema = z.strictObject({
  id: z.string(),
  symbol: z.string(),
  // Never zero: a flat position is removed (and the entry price divides by it).
  size: z.string().refine((v) => parseDecimal(v)?.isZero() === false, 'a non-zero decimal string'),
  cost: nonNegative,
  margin: nonNegative,
  collateral: nonNegative,
  leverage,
  openedAt: z.number(),
}) satisfies z.ZodType<AccountPositionState>;

const orderSchema = z.strictObject({
  orderId: z.string(),
  clientOrderId: z.string(),
  symbol: z.string(),
  side: z.enum(['BUY', 'SELL']),
  type: z.enum(ORDER_TYPES),
  reduceOnly: z.boolean(),
  referencePrice: positive,
  quantity: positive,
  remaining: positive,
  leverage,
  frozen: nonNegative,
}) satisfies z.ZodType<AccountOrderState>;

/** The shape of an AccountState (parseAccountState adds the consistency checks); projections embed it. */
export const accountStateSchema = z.strictObject({
  v: z.literal(ACCOUNT_STATE_VERSION),
  user: z.string(),
  walletBalance: decimal,
  marginMode: z.enum(MARGIN_MODES),
  vipTier: z.number().int().min(0),
  leverages: z.array(z.tuple([z.string(), leverage])),
  positions: z.array(positionSchema),
  orders: z.array(orderSchema),
  clientOrderIds: z.array(z.tuple([z.string(), z.string()])),
}) satisfies z.ZodType<AccountState>;

const ledgerSchema = z.strictObject({
  balances: z.array(z.tuple([ledgerAccount, decimal])),
  totalDeposits: nonNegative,
}) satisfies z.ZodType<LedgerState>;

const bookSchema = z.strictObject({
  v: z.literal(ACCOUNT_STATE_VERSION),
  accounts: z.array(accountStateSchema),
  ledger: ledgerSchema,
  marks: z.array(z.tuple([z.string(), positive])),
}) satisfies z.ZodType<AccountBookState>;

function parseWith<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`malformed ${what}: ${issues.join('; ')}`);
}

/** A clear message for data written by another format version, before any shape check. */
function checkVersion(input: unknown, what: string): void {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new Error(`malformed ${what}: not an object`);
  const v = (input as { v?: unknown }).v;
  if (v !== ACCOUNT_STATE_VERSION)
    throw new Error(`unsupported ${what} version ${JSON.stringify(v)}: expected ${ACCOUNT_STATE_VERSION}`);
}

function duplicate<T>(values: readonly T[]): T | undefined {
  const seen = new Set<T>();
  for (const v of values) {
    if (seen.has(v)) return v;
    seen.add(v);
  }
  return undefined;
}

/** Consistency the shape cannot express: keys unique, the clientOrderId index matching the orders. */
function checkAccount(s: AccountState, what: string): void {
  const fail = (message: string): never => {
    throw new Error(`malformed ${what} of ${s.user}: ${message}`);
  };
  const symbol = duplicate(s.leverages.map(([sym]) => sym));
  if (symbol !== undefined) fail(`leverage of ${symbol} twice`);
  const position = duplicate(s.positions.map((p) => p.symbol));
  if (position !== undefined) fail(`two positions on ${position}`);
  const order = duplicate(s.orders.map((o) => o.orderId));
  if (order !== undefined) fail(`order ${order} twice`);
  const index = new Map(s.clientOrderIds);
  if (index.size !== s.clientOrderIds.length || index.size !== s.orders.length)
    fail('clientOrderIds does not index the open orders one to one');
  for (const o of s.orders)
    if (index.get(o.clientOrderId) !== o.orderId)
      fail(`clientOrderId ${o.clientOrderId} does not index order ${o.orderId}`);
}

function checkLedger(s: LedgerState, what: string): void {
  const account = duplicate(s.balances.map(([a]) => a));
  if (account !== undefined) throw new Error(`malformed ${what}: ledger account ${account} twice`);
  // Money enters only by deposit, so the balances sum to the deposits exactly.
  const total = s.balances.reduce((sum, [, b]) => sum.plus(fromMoneyString(b)), new Money(0));
  if (!total.eq(fromMoneyString(s.totalDeposits)))
    throw new Error(`malformed ${what}: balances sum to ${total.toFixed()}, deposits ${s.totalDeposits}`);
}

/** Validates an AccountState read from storage (unknown JSON); throws an Error saying what is wrong. */
export function parseAccountState(input: unknown): AccountState {
  checkVersion(input, 'AccountState');
  const state = parseWith(accountStateSchema, input, 'AccountState');
  checkAccount(state, 'AccountState');
  return state;
}

export function parseLedgerState(input: unknown): LedgerState {
  const state = parseWith(ledgerSchema, input, 'LedgerState');
  checkLedger(state, 'LedgerState');
  return state;
}

/**
 * Validates an AccountBookState, including that the ledger's wallets are the accounts' wallets
 * (the book keeps them equal; a snapshot where they differ is corrupt).
 */
export function parseAccountBookState(input: unknown): AccountBookState {
  const what = 'AccountBookState';
  checkVersion(input, what);
  const state = parseWith(bookSchema, input, what);
  for (const a of state.accounts) checkAccount(a, what);
  checkLedger(state.ledger, what);
  const user = duplicate(state.accounts.map((a) => a.user));
  if (user !== undefined) throw new Error(`malformed ${what}: account ${user} twice`);
  const symbol = duplicate(state.marks.map(([s]) => s));
  if (symbol !== undefined) throw new Error(`malformed ${what}: mark price of ${symbol} twice`);
  const ledger = new Map(state.ledger.balances);
  for (const a of state.accounts) {
    const inLedger = ledger.get(`wallet:${a.user}`) ?? '0';
    if (!fromMoneyString(inLedger).eq(fromMoneyString(a.walletBalance)))
      throw new Error(`malformed ${what}: wallet of ${a.user} is ${a.walletBalance}, ledger ${inLedger}`);
  }
  const users = new Set(state.accounts.map((a) => a.user));
  for (const [a] of state.ledger.balances)
    if (a.startsWith('wallet:') && !users.has(a.slice('wallet:'.length)))
      throw new Error(`malformed ${what}: ledger ${a} has no account`);
  return state;
}
