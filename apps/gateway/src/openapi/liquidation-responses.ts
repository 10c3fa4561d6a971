import { z } from 'zod';

// Response records of the liquidation and ADL reads (FAPI, native and admin), for the reference.

const dec = (description?: string) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .meta(description ? { description } : {});
const ms = (description?: string) =>
  z
    .number()
    .int()
    .meta(description ? { description } : {});
const quantile = z.number().int().min(0).max(5);

export const ForceOrder = z
  .object({
    orderId: z.string(),
    symbol: z.string(),
    status: z.literal('FILLED'),
    clientOrderId: z.string().meta({
      description: '`autoclose-<orderId>` for a liquidation, `adl_autoclose-<orderId>` for an ADL close',
    }),
    price: dec('Liquidation: the bankruptcy price; ADL: the close price'),
    avgPrice: dec(),
    origQty: dec(),
    executedQty: dec(),
    cumQuote: dec('executedQty x avgPrice'),
    timeInForce: z.enum(['IOC', 'GTC']),
    type: z.literal('LIQUIDATION'),
    reduceOnly: z.literal(true),
    closePosition: z.literal(false),
    side: z.enum(['BUY', 'SELL']),
    positionSide: z.literal('BOTH'),
    stopPrice: z.literal('0'),
    workingType: z.literal('CONTRACT_PRICE'),
    origType: z.literal('LIMIT'),
    time: ms(),
    updateTime: ms(),
  })
  .meta({ id: 'ForceOrder', description: 'A liquidation or an ADL close of one of your positions.' });

export const AdlQuantile = z
  .object({
    symbol: z.string(),
    adlQuantile: z.object({
      LONG: quantile.meta({ description: 'The quantile when the position is long, else 0' }),
      SHORT: quantile.meta({ description: 'The quantile when the position is short, else 0' }),
      BOTH: quantile.meta({ description: 'The one-way position’s quantile (0: none or not ranked yet)' }),
    }),
  })
  .meta({
    id: 'AdlQuantile',
    description: '1 (last in line) to 5 (first in line for ADL); 0 without a position.',
  });

const bucket = z.object({
  quantile: z.number().int().min(1).max(5),
  positions: z.number().int().min(0),
});
export const AdlRankings = z
  .object({
    symbol: z.string(),
    long: z.array(bucket).meta({ description: 'Quantiles 5 (first in line) to 1' }),
    short: z.array(bucket),
    update_time: ms('Time of the ranking (0: none yet)'),
  })
  .meta({ id: 'AdlRankings', description: 'How many positions each ADL quantile holds, per side.' });

export const AdlEvent = z
  .object({
    symbol: z.string(),
    side: z.enum(['BUY', 'SELL']).meta({ description: 'Side of the close: BUY closed a short' }),
    position_side: z.enum(['LONG', 'SHORT']).meta({ description: 'The deleveraged position' }),
    price: dec('The bankruptcy price of the liquidation it absorbed'),
    quantity: dec(),
    time: ms(),
  })
  .meta({ id: 'AdlEvent', description: 'An ADL close, without whose position it was.' });

export const AdlConfig = z
  .object({
    symbol: z.string(),
    ranking: z.string(),
    quantiles: z.array(z.object({ quantile: z.number().int(), description: z.string() })),
    update: z.string(),
    close_price: z.string(),
    liquidation_fee_rate: dec(),
    maintenance_margin_brackets: z.array(
      z.object({
        bracket: z.number().int(),
        notional_floor: dec(),
        notional_cap: dec(),
        maintenance_margin_rate: dec(),
        max_leverage: z.number().int(),
        cum: dec('Maintenance amount: notional x rate - cum'),
      }),
    ),
  })
  .meta({ id: 'AdlConfig', description: 'How liquidation and ADL work on the market.' });

export const AdlHistoryItem = z
  .object({
    order_id: z.string(),
    symbol: z.string(),
    side: z.enum(['BUY', 'SELL']),
    position_side: z.enum(['LONG', 'SHORT']),
    price: dec(),
    quantity: dec(),
    time: ms(),
  })
  .meta({ id: 'AdlHistoryItem' });

const paged = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
    total: z.number().int().min(0),
  });

export const AdlHistory = paged(AdlHistoryItem).meta({
  id: 'AdlHistory',
  description: 'Your ADL closes, newest first.',
});

export const InsuranceMovement = z.object({
  partition: z.number().int(),
  symbol: z.string(),
  kind: z.enum(['LIQUIDATION_FEE', 'BANKRUPTCY_LOSS', 'FUNDING_DUST']),
  amount: dec('Signed as the risk shard posted it'),
  balance: dec("The partition's share after it"),
  ref: z.string(),
  time: ms(),
});
export const InsuranceFund = z
  .object({
    asset: z.string(),
    balance: dec('Sum of every risk partition’s latest share'),
    ledger_balance: dec('The risk ledgers’ insurance accounts now'),
    partitions: z.array(z.object({ partition: z.number().int(), balance: dec(), time: ms() })),
    history: paged(InsuranceMovement),
  })
  .meta({ id: 'InsuranceFund' });

export const Solvency = z
  .object({
    asset: z.string(),
    deposits: dec(),
    wallets: dec(),
    open_position_pnl: dec('Unrealized PnL of every open position at the current marks, from exact cost'),
    fees: dec(),
    insurance_fund: dec(),
    difference: dec('deposits - wallets - open_position_pnl - fees - insurance_fund: exactly 0'),
    partitions: z.number().int().meta({ description: 'Risk partitions that reported totals' }),
    unsettled_symbols: z.array(z.string()).meta({
      description: 'Symbols whose long and short sizes differ: a fill settled on one side only (in flight)',
    }),
    time: ms('Latest partition report'),
  })
  .meta({ id: 'Solvency' });
