import { z } from 'zod';
import { decimalsOf, Money, parseDecimal } from '../money/money';
import { indexSourcesSchema } from '../prices/index-source-config';

export const MARKET_STATUSES = ['TRADING', 'HALT', 'CLOSE'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

const decimal = z.string().refine((v) => parseDecimal(v)?.gte(0) === true, 'a non-negative decimal string');
const positiveDecimal = z
  .string()
  .refine((v) => parseDecimal(v)?.gt(0) === true, 'a positive decimal string');

/** One maintenance-margin bracket, Binance style: applies to position notional up to notionalCap. */
export const maintenanceBracketSchema = z.object({
  notionalCap: positiveDecimal,
  maintMarginRatio: decimal,
  maxLeverage: z.number().int().positive(),
});
export type MaintenanceBracket = z.infer<typeof maintenanceBracketSchema> & { cum: string };

export const feeTierSchema = z.object({
  tier: z.number().int().min(0),
  makerRate: z.string().refine((v) => parseDecimal(v) !== undefined, 'a decimal string'),
  takerRate: z.string().refine((v) => parseDecimal(v) !== undefined, 'a decimal string'),
});
export type FeeTier = z.infer<typeof feeTierSchema>;

export const marketConfigSchema = z.object({
  symbol: z.string().regex(/^[A-Z0-9]{2,20}USDT$/, 'canonical form such as BTCUSDT'),
  baseAsset: z.string().regex(/^[A-Z0-9]{1,16}$/),
  quoteAsset: z.literal('USDT'),
  underlyingType: z.enum(['COIN', 'INDEX', 'DEFI']).default('COIN'),
  status: z.enum(MARKET_STATUSES).default('TRADING'),
  tickSize: positiveDecimal,
  lotSize: positiveDecimal,
  minOrderSizeUsd: decimal,
  maxOrderSizeUsd: positiveDecimal,
  maxLeverage: z.number().int().min(1).max(200),
  defaultLeverage: z.number().int().min(1),
  /** Per-side open-interest caps in base units (what the engine can check without a price). */
  maxLongOi: positiveDecimal,
  maxShortOi: positiveDecimal,
  fundingIntervalHours: z.number().int().min(1).max(24).default(8),
  /** When set, the funding interval in minutes (1 … 1440) instead of fundingIntervalHours (test chains). */
  fundingIntervalMinutes: z.number().int().min(1).max(1440).optional(),
  /** Hourly borrowing-fee rate used in the funding formula and shown as interestRate. */
  interestRate: decimal.default('0.0000125'),
  /** The funding rate of an interval is clamped to [−fundingRateCap, +fundingRateCap]. */
  fundingRateCap: positiveDecimal.default('0.02'),
  maxOpenOrders: z.number().int().positive().default(200),
  maxAlgoOrders: z.number().int().positive().default(10),
  /** priceProtect: a trigger waits while |last - mark| / mark is above this (Binance's triggerProtect). */
  triggerProtect: decimal.default('0.05'),
  rank: z.number().int().positive(),
  sortOrder: z.number().int().nonnegative(),
  onboardDate: z.number().int().nonnegative().default(0),
  maintenanceBrackets: z.array(maintenanceBracketSchema).min(1),
  /**
   * Where a simulated index-price feed starts (a multiple of tickSize). Optional: only the
   * embedded demo's feed reads it; markets without one get no simulated prices.
   */
  referencePrice: positiveDecimal.optional(),
  /** The sources of the composite index (PRICE_SOURCE=composite); optional. */
  indexSources: indexSourcesSchema.optional(),
});
export type MarketConfigInput = z.input<typeof marketConfigSchema>;

export interface Market extends Omit<z.infer<typeof marketConfigSchema>, 'maintenanceBrackets'> {
  pricePrecision: number;
  quantityPrecision: number;
  maintenanceBrackets: MaintenanceBracket[];
}

/**
 * Validates a market and derives what follows from it: precisions from the steps, and each
 * bracket's `cum` (maintenance amount), so that maintenance = notional x ratio - cum is continuous.
 */
export function parseMarket(input: unknown): Market {
  const m = marketConfigSchema.parse(input);
  if (m.defaultLeverage > m.maxLeverage) throw new Error(`${m.symbol}: defaultLeverage above maxLeverage`);
  if (new Money(m.minOrderSizeUsd).gt(m.maxOrderSizeUsd))
    throw new Error(`${m.symbol}: minOrderSizeUsd above maxOrderSizeUsd`);
  if (m.referencePrice !== undefined && !new Money(m.referencePrice).mod(m.tickSize).isZero())
    throw new Error(`${m.symbol}: referencePrice not a multiple of tickSize`);
  let cum = new Money(0);
  let floor = new Money(0);
  let prevRatio = new Money(0);
  const maintenanceBrackets = m.maintenanceBrackets.map((b) => {
    const cap = new Money(b.notionalCap);
    if (cap.lte(floor)) throw new Error(`${m.symbol}: bracket caps must increase`);
    cum = cum.plus(floor.times(new Money(b.maintMarginRatio).minus(prevRatio)));
    floor = cap;
    prevRatio = new Money(b.maintMarginRatio);
    return { ...b, cum: cum.toFixed() };
  });
  return {
    ...m,
    pricePrecision: decimalsOf(m.tickSize),
    quantityPrecision: decimalsOf(m.lotSize),
    maintenanceBrackets,
  };
}
