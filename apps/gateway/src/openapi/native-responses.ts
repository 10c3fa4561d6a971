import { NATIVE_ERRORS } from '@perp/contracts';
import { marketConfigSchema } from '@perp/domain';
import { z } from 'zod';

// Response records of the native API, for the reference (the OpenAPI e2e test checks live answers
// against them).

const dec = (description?: string) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .meta(description ? { description } : {});
const iso = (description?: string) => z.iso.datetime().meta(description ? { description } : {});
const codes = Object.keys(NATIVE_ERRORS) as [string, ...string[]];

export const NativeErrorBody = z
  .object({ error: z.string().meta({ description: 'Human-readable message' }), code: z.enum(codes) })
  .meta({
    id: 'NativeError',
    description: 'The error envelope of every native and admin route: `{error, code}`.',
  });

const keyFields = {
  id: z.uuid(),
  api_key: z.string().meta({ description: '64 hex characters; sent as X-MBX-APIKEY' }),
  label: z.string(),
  ip_whitelist: z.string().meta({ description: 'Comma-separated IPs or CIDRs; empty = unrestricted' }),
  permissions: z.literal('trading,deposit'),
  created_at: iso(),
  status: z.enum(['active', 'disabled']),
};
export const ApiKey = z
  .object({ ...keyFields, last_used_at: iso().nullable() })
  .meta({ id: 'ApiKey', description: 'An API key (never its secret).' });
export const CreatedApiKey = z
  .object({ ...keyFields, secret_key: z.string().meta({ description: 'Shown only in this response' }) })
  .meta({ id: 'CreatedApiKey' });

export const LoginTypedData = z
  .object({
    typed_data: z.object({
      domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int() }),
      types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      primaryType: z.literal('Login'),
      message: z.object({
        statement: z.string(),
        address: z.string(),
        nonce: z.string(),
        timestamp: z.number().int(),
      }),
    }),
  })
  .meta({
    id: 'LoginTypedData',
    description: 'EIP-712 typed data to sign with the wallet (single-use nonce).',
  });

export const Token = z.object({
  token: z.string().meta({ description: 'JWT: `Authorization: Bearer <token>`' }),
});

export const NativeMarket = z
  .object({
    symbol: z.string(),
    base_asset: z.string(),
    quote_asset: z.string(),
    status: z.enum(['TRADING', 'HALT', 'CLOSE']),
    last_price: dec(),
    price_change_24h: dec(),
    price_change_percent_24h: dec(),
    high_24h: dec(),
    low_24h: dec(),
    volume_24h: dec(),
    quote_volume_24h: dec(),
    trades_24h: z.number().int(),
    rank: z.number().int(),
    leverage: z.number().int().meta({ description: 'Maximum leverage' }),
    sort_order: z.number().int(),
    tick_size: dec(),
    lot_size: dec(),
    min_order_size_usd: dec(),
    max_order_size_usd: dec(),
    mark_price: dec().nullable().meta({ description: 'The latest mark price; null before the first' }),
    index_price: dec().nullable(),
    funding_rate: dec()
      .nullable()
      .meta({ description: 'The current interval’s estimated funding rate (paid at next_funding_time)' }),
    next_funding_time: iso(),
  })
  .meta({
    id: 'NativeMarket',
    description: 'A market with its rolling 24 h figures (the FAPI ticker’s), mark price and funding.',
  });

export const NativeOrder = z
  .object({
    id: z.uuid(),
    client_order_id: z.string(),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    type: z.enum(['limit', 'market']),
    status: z.enum(['new', 'partially_filled', 'filled', 'canceled', 'rejected', 'expired']),
    time_in_force: z.enum(['gtc', 'ioc', 'fok', 'gtx']),
    reduce_only: z.boolean(),
    price: dec('Limit price; null for market orders').nullable(),
    quantity: dec(),
    filled_quantity: dec(),
    remaining_quantity: dec('Still working in the book; 0 once the order is done'),
    average_price: dec('Null before the first fill').nullable(),
    filled_notional: dec(),
    created_at: iso(),
    updated_at: iso(),
  })
  .meta({ id: 'NativeOrder' });

export const NativeConditionalOrder = z
  .object({
    id: z.string().regex(/^\d+$/).meta({ description: 'Conditional order id (digits)' }),
    client_order_id: z.string(),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    type: z.enum([
      'stop_market',
      'stop_limit',
      'take_profit_market',
      'take_profit_limit',
      'trailing_stop_market',
    ]),
    status: z.enum(['new', 'triggered', 'finished', 'canceled', 'expired', 'failed']),
    trigger_price: dec('The mark price that fires it'),
    price: dec('Limit price after the trigger; null for the market forms').nullable(),
    quantity: dec(),
    reduce_only: z.boolean(),
    order_id: z.string().nullable().meta({ description: 'The order it fired as; null while it waits' }),
    created_at: iso(),
    updated_at: iso(),
  })
  .meta({ id: 'NativeConditionalOrder' });

/** An ordinary order or a conditional one (the id says which: a UUID or digits). */
export const NativeAnyOrder = z.union([NativeOrder, NativeConditionalOrder]);

const Position = z
  .object({
    id: z.string().meta({ description: 'Position id, used by the collateral routes' }),
    symbol: z.string(),
    side: z.enum(['long', 'short']),
    size: dec(),
    entry_price: dec(),
    mark_price: dec(),
    notional: dec(),
    unrealized_pnl: dec(),
    leverage: z.number().int(),
    margin_type: z.enum(['cross', 'isolated']),
    margin: dec(),
    collateral: dec(),
    isolated_margin: dec(),
    maintenance_margin: dec(),
    margin_ratio: dec().nullable(),
    liquidation_price: dec(),
    break_even_price: dec(),
  })
  .meta({ id: 'NativePosition' });

export const NativeAccount = z
  .object({
    address: z.string(),
    margin_mode: z.enum(['cross', 'isolated', 'unified']),
    vip_tier: z.number().int(),
    balances: z.object({
      asset: z.string(),
      wallet_balance: dec(),
      available_balance: dec(),
      unrealized_pnl: dec(),
      margin_balance: dec(),
      position_margin: dec(),
      isolated_margin: dec(),
      order_margin: dec(),
      maintenance_margin: dec(),
      margin_ratio: dec().nullable(),
    }),
    positions: z.array(Position),
    open_orders: z.number().int(),
    updated_at: iso().nullable(),
  })
  .meta({ id: 'NativeAccount' });

export const NativeOpenInterest = z
  .object({
    symbol: z.string(),
    long_oi: dec(),
    short_oi: dec(),
    long_oi_usd: dec().nullable(),
    short_oi_usd: dec().nullable(),
    max_long_oi: dec(),
    max_short_oi: dec(),
    max_long_oi_usd: dec().nullable(),
    max_short_oi_usd: dec().nullable(),
    mark_price: dec().nullable(),
    updated_at: iso().nullable(),
  })
  .meta({ id: 'NativeOpenInterest' });

const { symbol: _symbol, mark_price: _mark, updated_at: _updated, ...oiSides } = NativeOpenInterest.shape;

export const NativeFundingRate = z
  .object({
    symbol: z.string(),
    funding_rate: dec()
      .nullable()
      .meta({ description: 'The rate in force: the last settled one; null before the first round' }),
    funding_time: iso().nullable().meta({ description: 'When that rate was settled' }),
    predicted_funding_rate: dec().nullable().meta({
      description: 'The current interval’s estimate, paid at next_funding_time; null before a mark',
    }),
    next_funding_time: iso(),
    funding_interval_minutes: z.number().int(),
    funding_rate_cap: dec(),
    funding_rate_floor: dec(),
    interest_rate: dec().meta({ description: 'Hourly interest rate of the funding formula' }),
    mark_price: dec().nullable(),
    index_price: dec().nullable(),
    ...oiSides,
  })
  .meta({
    id: 'NativeFundingRate',
    description: 'Funding of a market with its per-side open interest and caps.',
  });

export const MarginModeAnswer = z.object({
  margin_mode: z.enum(['cross', 'isolated', 'unified']),
  changed: z.boolean(),
});

export const CollateralAnswer = z.object({
  position_id: z.string(),
  symbol: z.string(),
  action: z.enum(['add', 'remove']),
  amount: dec(),
  collateral: dec(),
  isolated_margin: dec(),
});

export const MarketConfig = marketConfigSchema.meta({
  id: 'MarketConfig',
  description: 'A market’s configuration (the same schema chain.json is read with).',
});

export const AnyObject = z.record(z.string(), z.unknown());
