import { NATIVE_ERRORS, type NativeErrorCode } from '@perp/contracts';
import type {
  JsonSchema,
  OpenApiDocument,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiResponse,
} from './openapi-types';

// ---- schema helpers -------------------------------------------------------------------------

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...extra,
});
const decimal = (description?: string): JsonSchema =>
  str(description, { pattern: '^-?\\d+(\\.\\d+)?$', examples: ['0.01'] });
const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });
const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'integer',
  ...(description ? { description } : {}),
  ...extra,
});
const bool = (description?: string): JsonSchema => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
const iso = (description?: string): JsonSchema => str(description, { format: 'date-time' });
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const enumOf = (values: readonly string[], description?: string): JsonSchema =>
  str(description, { enum: [...values] });

/** An object schema; every property is required unless listed in `optional`. */
function obj(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

const json = (schema: JsonSchema, example?: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});
const ok = (description: string, schema: JsonSchema, example?: unknown): OpenApiResponse => ({
  description,
  content: json(schema, example),
});

/** Error responses: per HTTP status, the native codes the route can answer with it (flat envelope). */
function errors(...codes: NativeErrorCode[]): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, NativeErrorCode[]>();
  for (const c of codes) byStatus.set(NATIVE_ERRORS[c], [...(byStatus.get(NATIVE_ERRORS[c]) ?? []), c]);
  const out: Record<string, OpenApiResponse> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0]))
    out[String(status)] = {
      description: list.join(', '),
      content: json({
        allOf: [ref('NativeError')],
        properties: { code: enumOf(list) },
      }),
    };
  return out;
}

const pathParam = (name: string, description: string, schema: JsonSchema = str()): OpenApiParameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
const symbolParam = pathParam('symbol', 'Market symbol, any alias (BTCUSDT, BTC-USD, btc_usdt).');
const jwt = [{ jwt: [] }];
const admin = [{ adminToken: [] }];
const body = (schema: JsonSchema, example?: unknown) => ({ required: true, content: json(schema, example) });

function op(
  operationId: string,
  tag: string,
  summary: string,
  rest: Omit<OpenApiOperation, 'operationId' | 'tags' | 'summary'>,
): OpenApiOperation {
  return { operationId, tags: [tag], summary, ...rest };
}

// ---- component schemas ----------------------------------------------------------------------

const schemas: Record<string, JsonSchema> = {
  NativeError: {
    ...obj({
      error: str('Human-readable message.'),
      code: enumOf(Object.keys(NATIVE_ERRORS), 'Native error code.'),
    }),
    description:
      'The error envelope of every route in this document: `{error, code}`. (The spec allows a second, ' +
      'wrapped envelope `{success:false, error:{code,message}}`; no route here uses it.)',
  },
  ApiKey: obj(
    {
      id: str('UUID', { format: 'uuid' }),
      api_key: str('64 hex characters; sent as X-MBX-APIKEY'),
      label: str(),
      ip_whitelist: str('Comma-separated IPs; empty = unrestricted'),
      permissions: str('Always `trading,deposit`'),
      created_at: iso(),
      last_used_at: nullable(iso()),
      status: enumOf(['active', 'disabled']),
    },
    ['last_used_at'],
  ),
  CreatedApiKey: obj({
    id: str('UUID', { format: 'uuid' }),
    api_key: str(),
    secret_key: str('64 hex characters; shown only in this response'),
    label: str(),
    ip_whitelist: str(),
    permissions: str(),
    created_at: iso(),
    status: enumOf(['active', 'disabled']),
  }),
  Market: {
    ...obj({
      symbol: str('Canonical symbol, e.g. BTCUSDT'),
      base_asset: str(),
      quote_asset: str(),
      status: enumOf(['TRADING', 'HALT', 'CLOSE']),
      last_price: decimal('Price of the last trade ever, at the tick size; 0 before the first trade'),
      price_change_24h: decimal('last_price minus the first trade price of the 24 h window'),
      price_change_percent_24h: decimal('price_change_24h in percent of that first price, 3 decimals'),
      high_24h: decimal('Highest trade price of the 24 h window'),
      low_24h: decimal('Lowest trade price of the 24 h window'),
      volume_24h: decimal('Base quantity traded in the 24 h window, at the lot size'),
      quote_volume_24h: decimal('Σ price × quantity of the 24 h window (quote asset), exact'),
      trades_24h: int('Number of trades in the 24 h window'),
      rank: int(),
      leverage: int('Maximum leverage'),
      sort_order: int(),
      tick_size: decimal(),
      lot_size: decimal(),
      min_order_size_usd: decimal(),
      max_order_size_usd: decimal(),
    }),
    description:
      'A market with its rolling 24 h statistics (`*_24h`, `last_price`): the same figures as FAPI ' +
      '`GET /fapi/v1/ticker/24hr`, over the last 1440 whole minutes, from the market-data projection. ' +
      'A market without a trade in the window shows its last price as open, high and low (no change) ' +
      'and zero volumes; one never traded shows 0 everywhere.',
  },
  NewOrder: {
    ...obj(
      {
        symbol: str('Market symbol, any alias (BTC-USD, BTC/USDT, btcusdt); or send `market_symbol`'),
        market_symbol: str('Same as `symbol`'),
        side: enumOf(['buy', 'sell'], 'Case-insensitive'),
        type: enumOf(['limit', 'market'], 'Case-insensitive'),
        quantity: decimal('Base quantity; floored to the lot size'),
        price: decimal(
          'Limit price (required for limit orders: PRICE_REQUIRED); not accepted on market orders',
        ),
        leverage: int(
          '1 to the market maximum (INVALID_LEVERAGE). Set first, as the standing leverage of the symbol',
          {
            minimum: 1,
          },
        ),
        reduce_only: bool(),
        time_in_force: enumOf(
          ['gtc', 'ioc', 'fok', 'gtx', 'post_only'],
          'Default gtc; gtx/post_only = post-only limit',
        ),
        client_order_id: str('1-36 of [A-Za-z0-9_.-]; unique among your open orders', { maxLength: 36 }),
        max_slippage: decimal(
          'Market orders: largest adverse deviation of the expected worst fill price from the mark price, ' +
            'as a fraction ("0.01" = 1 %). The fill is simulated against the order book as GET /fapi/v1/depth ' +
            'serves it (up to 1000 levels a side); what the book cannot fill expires, and an order larger ' +
            'than a full 1000-level side is refused (SLIPPAGE_EXCEEDED). Ignored on limit orders.',
        ),
      },
      [
        'symbol',
        'market_symbol',
        'price',
        'leverage',
        'reduce_only',
        'time_in_force',
        'client_order_id',
        'max_slippage',
      ],
    ),
    required: ['side', 'type', 'quantity'],
  },
  Order: obj({
    id: str('Order id (UUID)', { format: 'uuid' }),
    client_order_id: str(),
    symbol: str(),
    side: enumOf(['buy', 'sell']),
    type: enumOf(['limit', 'market']),
    status: enumOf(['new', 'partially_filled', 'filled', 'canceled', 'rejected', 'expired']),
    time_in_force: enumOf(['gtc', 'ioc', 'fok']),
    reduce_only: bool(),
    price: nullable(decimal('Limit price; null for market orders')),
    quantity: decimal(),
    filled_quantity: decimal(),
    remaining_quantity: decimal('Still working in the book; 0 once the order is done'),
    average_price: nullable(decimal('Average fill price; null before the first fill')),
    filled_notional: decimal('Sum of price x quantity of the fills (USDT)'),
    created_at: iso(),
    updated_at: iso(),
  }),
  Balances: obj({
    asset: str(),
    wallet_balance: decimal(),
    available_balance: decimal(),
    unrealized_pnl: decimal(),
    margin_balance: decimal(),
    position_margin: decimal(),
    isolated_margin: decimal(),
    order_margin: decimal(),
    maintenance_margin: decimal(),
    margin_ratio: nullable(decimal('Cross maintenance / cross margin balance; null when that balance <= 0')),
  }),
  Position: obj({
    id: str('Position id: the trade id of the fill that opened it; used by the collateral routes'),
    symbol: str(),
    side: enumOf(['long', 'short']),
    size: decimal('Absolute base quantity'),
    entry_price: decimal(),
    mark_price: decimal(),
    notional: decimal(),
    unrealized_pnl: decimal(),
    leverage: int(),
    margin_type: enumOf(['cross', 'isolated']),
    margin: decimal('Initial margin held'),
    collateral: decimal('Isolated: collateral added above the initial margin'),
    isolated_margin: decimal('Isolated: margin + collateral; cross: 0'),
    maintenance_margin: decimal(),
    margin_ratio: nullable(decimal()),
    liquidation_price: decimal('0 when no positive price liquidates the position'),
    break_even_price: decimal(),
  }),
  Account: obj({
    address: str(),
    margin_mode: enumOf(['cross', 'isolated', 'unified']),
    vip_tier: int(),
    balances: ref('Balances'),
    positions: arrayOf(ref('Position')),
    open_orders: int('Number of open orders'),
    updated_at: nullable(iso('Last change of the account; null for an account never touched')),
  }),
  OpenInterest: obj({
    symbol: str(),
    long_oi: decimal('Sum of long position sizes (base units)'),
    short_oi: decimal('Sum of short position sizes (base units)'),
    long_oi_usd: nullable(decimal('At the mark price; null while no mark price is known')),
    short_oi_usd: nullable(decimal()),
    max_long_oi: decimal('Cap (base units)'),
    max_short_oi: decimal('Cap (base units)'),
    max_long_oi_usd: nullable(decimal()),
    max_short_oi_usd: nullable(decimal()),
    mark_price: nullable(decimal()),
    updated_at: nullable(iso('Time of the last trade that changed the figures')),
  }),
  MarketConfig: {
    ...obj(
      {
        symbol: str('Any alias; stored canonically'),
        baseAsset: str(),
        quoteAsset: enumOf(['USDT']),
        tickSize: decimal(),
        lotSize: decimal(),
        minOrderSizeUsd: decimal(),
        maxOrderSizeUsd: decimal(),
        maxLeverage: int(),
        defaultLeverage: int(),
        maxLongOi: decimal(),
        maxShortOi: decimal(),
        referencePrice: decimal('Start of the simulated index feed (PRICE_SOURCE=simulated)'),
        rank: int(),
        sortOrder: int(),
        maintenanceBrackets: arrayOf(
          obj({ notionalCap: decimal(), maintMarginRatio: decimal(), maxLeverage: int() }),
        ),
      },
      ['referencePrice'],
    ),
    description:
      'The market configuration (libs/domain marketConfigSchema); optional fields take their defaults.',
    additionalProperties: true,
  },
};

// ---- paths ----------------------------------------------------------------------------------

const order = ok('The order', ref('Order'));

export const NATIVE_OPENAPI: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Perpetual futures exchange: native API',
    version: '1',
    description:
      'Native routes (`/api/v1`, wallet login and JWT) and operator routes (`/admin/v1`, admin token). ' +
      'Amounts and prices are decimal strings; times are ISO 8601 UTC strings. Errors use the flat ' +
      'envelope `{error, code}` everywhere (check the HTTP status first).',
  },
  tags: [
    { name: 'auth', description: 'Wallet (EIP-712) login' },
    { name: 'api-keys', description: 'API keys for FAPI' },
    { name: 'markets', description: 'Markets and open interest' },
    { name: 'orders', description: 'Order entry and queries' },
    { name: 'account', description: 'Balances, positions, margin mode, collateral' },
    { name: 'admin', description: 'Operator routes' },
    { name: 'meta', description: 'This document' },
  ],
  paths: {
    '/api/v1/auth/nonce/{address}': {
      get: op('getLoginNonce', 'auth', 'EIP-712 typed data to sign for login', {
        parameters: [pathParam('address', 'Wallet address, 0x-prefixed hex')],
        responses: {
          '200': ok(
            'Typed data with a single-use nonce',
            obj({
              typed_data: obj({
                domain: obj({ name: str(), version: str(), chainId: int() }),
                types: { type: 'object' },
                primaryType: enumOf(['Login']),
                message: obj({ statement: str(), address: str(), nonce: str(), timestamp: int('ms') }),
              }),
            }),
          ),
          ...errors('INVALID_ADDRESS', 'RATE_LIMITED'),
        },
      }),
    },
    '/api/v1/auth/login': {
      post: op('login', 'auth', 'Exchange a signed nonce for a JWT', {
        requestBody: body(
          obj({
            address: str(),
            signature: str('0x-prefixed hex of the EIP-712 signature'),
            timestamp: int('The `timestamp` of the typed data message'),
          }),
        ),
        responses: {
          '200': ok('The token', obj({ token: str('JWT; send as `Authorization: Bearer <token>`') })),
          ...errors(
            'INVALID_ADDRESS',
            'TIMESTAMP_EXPIRED',
            'SIGNATURE_FORMAT_INVALID',
            'SIGNATURE_INVALID',
            'USER_NOT_FOUND',
            'RATE_LIMITED',
          ),
        },
      }),
    },
    '/api/v1/api-keys': {
      post: op('createApiKey', 'api-keys', 'Create an API key (the secret is shown once)', {
        security: jwt,
        requestBody: body(obj({ label: str(), ip_whitelist: str() }, ['label', 'ip_whitelist'])),
        responses: {
          '200': ok('The key with its secret', ref('CreatedApiKey')),
          ...errors('LIMIT_REACHED', 'INVALID_IP', 'INVALID_REQUEST', 'INVALID_TOKEN'),
        },
      }),
      get: op('listApiKeys', 'api-keys', 'List your API keys', {
        security: jwt,
        responses: { '200': ok('The keys (no secrets)', arrayOf(ref('ApiKey'))), ...errors('INVALID_TOKEN') },
      }),
    },
    '/api/v1/api-keys/{id}': {
      put: op('updateApiKey', 'api-keys', 'Change label, IP whitelist or status', {
        security: jwt,
        parameters: [pathParam('id', 'Key id (UUID)')],
        requestBody: body(
          obj({ label: str(), ip_whitelist: str(), status: enumOf(['active', 'disabled']) }, [
            'label',
            'ip_whitelist',
            'status',
          ]),
        ),
        responses: {
          '200': ok('The updated key', ref('ApiKey')),
          ...errors('INVALID_IP', 'INVALID_REQUEST', 'INVALID_TOKEN', 'NOT_FOUND'),
        },
      }),
      delete: op('deleteApiKey', 'api-keys', 'Delete an API key (immediate)', {
        security: jwt,
        parameters: [pathParam('id', 'Key id (UUID)')],
        responses: { '204': { description: 'Deleted' }, ...errors('INVALID_TOKEN', 'NOT_FOUND') },
      }),
    },
    '/api/v1/markets': {
      get: op('listMarkets', 'markets', 'Tradable markets with 24 h figures', {
        responses: { '200': ok('Markets, in sort order', arrayOf(ref('Market'))) },
      }),
    },
    '/api/v1/open-interest/{symbol}': {
      get: op('getOpenInterest', 'markets', 'Long and short open interest with the caps', {
        description:
          'Projected from the engine’s trades by the market-data service, so it trails the engine slightly.',
        parameters: [symbolParam],
        responses: { '200': ok('Open interest', ref('OpenInterest')), ...errors('INVALID_MARKET') },
      }),
    },
    '/api/v1/orders': {
      post: op('placeOrder', 'orders', 'Place a limit or market order', {
        description:
          'Answers after the engine handled the order and its own fills were settled (read-your-writes). ' +
          'When `leverage` is sent it is set first, as the standing leverage of the symbol, and stays set ' +
          'even if the order is then refused.',
        security: jwt,
        requestBody: body(ref('NewOrder'), {
          symbol: 'BTC-USD',
          side: 'buy',
          type: 'limit',
          quantity: '0.01',
          price: '50000',
          leverage: 10,
        }),
        responses: {
          '200': order,
          ...errors(
            'INVALID_SYMBOL',
            'INVALID_AMOUNT',
            'PRICE_REQUIRED',
            'INVALID_LEVERAGE',
            'SLIPPAGE_EXCEEDED',
            'INSUFFICIENT_BALANCE',
            'OI_CAP_EXCEEDED',
            'INVALID_REQUEST',
            'INVALID_TOKEN',
            'SERVICE_UNAVAILABLE',
            'PRICE_DATA_UNAVAILABLE',
          ),
        },
      }),
      get: op('listOpenOrders', 'orders', 'Your open orders, oldest first', {
        security: jwt,
        parameters: [
          { name: 'symbol', in: 'query', description: 'Only this market (any alias)', schema: str() },
        ],
        responses: {
          '200': ok('Open orders', arrayOf(ref('Order'))),
          ...errors('INVALID_MARKET', 'INVALID_TOKEN'),
        },
      }),
    },
    '/api/v1/orders/{id}': {
      get: op('getOrder', 'orders', 'One of your orders, open or done', {
        security: jwt,
        parameters: [pathParam('id', 'Order id (UUID)')],
        responses: { '200': order, ...errors('INVALID_TOKEN', 'ORDER_NOT_OWNED', 'ORDER_NOT_FOUND') },
      }),
      delete: op('cancelOrder', 'orders', 'Cancel an open order', {
        security: jwt,
        parameters: [pathParam('id', 'Order id (UUID)')],
        responses: {
          '200': ok('The canceled order', ref('Order')),
          ...errors(
            'ORDER_NOT_CANCELLABLE',
            'INVALID_TOKEN',
            'ORDER_NOT_OWNED',
            'ORDER_NOT_FOUND',
            'SERVICE_UNAVAILABLE',
          ),
        },
      }),
    },
    '/api/v1/account': {
      get: op('getAccount', 'account', 'Balances and positions', {
        security: jwt,
        responses: { '200': ok('The account', ref('Account')), ...errors('INVALID_TOKEN') },
      }),
    },
    '/api/v1/account/margin-mode': {
      post: op('setMarginMode', 'account', 'Switch between isolated and unified margin', {
        description: 'Needs no open orders, then no open positions. Asking for the current mode succeeds.',
        security: jwt,
        requestBody: body(
          {
            ...obj({ margin_mode: enumOf(['isolated', 'unified']), mode: str('Alias of margin_mode') }, [
              'margin_mode',
              'mode',
            ]),
          },
          { margin_mode: 'isolated' },
        ),
        responses: {
          '200': ok(
            'The mode now in force',
            obj({ margin_mode: enumOf(['cross', 'isolated', 'unified']), changed: bool() }),
          ),
          ...errors(
            'INVALID_MARGIN_MODE',
            'HAS_OPEN_ORDERS',
            'HAS_OPEN_POSITIONS',
            'INVALID_TOKEN',
            'SERVICE_UNAVAILABLE',
          ),
        },
      }),
    },
    ...Object.fromEntries(
      (['add', 'remove'] as const).map((action) => [
        `/api/v1/positions/{position_id}/collateral/${action}`,
        {
          post: op(
            `${action}Collateral`,
            'account',
            action === 'add'
              ? 'Add collateral to an isolated position (from the available balance)'
              : 'Remove collateral above the initial margin of an isolated position',
            {
              security: jwt,
              parameters: [pathParam('position_id', 'The position’s `id` from GET /api/v1/account')],
              requestBody: body(obj({ amount: decimal('USDT, positive') }), { amount: '25' }),
              responses: {
                '200': ok(
                  'The position’s collateral after the change',
                  obj({
                    position_id: str(),
                    symbol: str(),
                    action: enumOf([action]),
                    amount: decimal(),
                    collateral: decimal(),
                    isolated_margin: decimal(),
                  }),
                ),
                ...errors(
                  'INVALID_AMOUNT',
                  'INVALID_MARGIN_MODE',
                  ...(action === 'add' ? (['INSUFFICIENT_BALANCE'] as const) : []),
                  'INVALID_TOKEN',
                  'NOT_FOUND',
                  'SERVICE_UNAVAILABLE',
                ),
              },
            },
          ),
        },
      ]),
    ),
    '/api/v1/openapi.json': {
      get: op('getOpenApi', 'meta', 'This OpenAPI 3.1 document', {
        responses: { '200': ok('The document', { type: 'object' }) },
      }),
    },
    '/admin/v1/markets': {
      post: op('adminAddMarket', 'admin', 'Add a market', {
        security: admin,
        requestBody: body(ref('MarketConfig')),
        responses: {
          '200': ok('The market as stored', ref('MarketConfig')),
          ...errors('INVALID_REQUEST', 'INVALID_TOKEN', 'MARKET_EXISTS', 'SERVICE_UNAVAILABLE'),
        },
      }),
    },
    ...Object.fromEntries(
      (
        [
          ['pause', 'HALT', 'Pause a market (cancels go through, new orders are refused)'],
          ['resume', 'TRADING', 'Resume a paused market'],
          ['delist', 'CLOSE', 'Delist a market (final; open orders are canceled)'],
        ] as const
      ).map(([action, status, summary]) => [
        `/admin/v1/markets/{symbol}/${action}`,
        {
          post: op(`adminMarket${action[0].toUpperCase()}${action.slice(1)}`, 'admin', summary, {
            security: admin,
            parameters: [symbolParam],
            responses: {
              '200': ok('The market with its new status', {
                ...obj({ symbol: str(), status: enumOf([status]) }),
                additionalProperties: true,
              }),
              ...errors('INVALID_TOKEN', 'INVALID_MARKET', 'MARKET_DELISTED', 'SERVICE_UNAVAILABLE'),
            },
          }),
        },
      ]),
    ),
    '/admin/v1/deposits': {
      post: op('adminDeposit', 'admin', 'Credit a wallet', {
        security: admin,
        requestBody: body(
          obj({ address: str(), asset: enumOf(['USDT']), amount: decimal('Positive, as a string') }),
        ),
        responses: {
          '200': ok(
            'The new balance',
            obj({ address: str(), asset: str(), balance: decimal(), availableBalance: decimal() }),
          ),
          ...errors(
            'INVALID_ADDRESS',
            'INVALID_AMOUNT',
            'INVALID_REQUEST',
            'INVALID_TOKEN',
            'SERVICE_UNAVAILABLE',
          ),
        },
      }),
    },
    '/admin/v1/users/{address}/vip': {
      put: op('adminSetVipTier', 'admin', 'Set a user’s VIP fee tier', {
        security: admin,
        parameters: [pathParam('address', 'Wallet address')],
        requestBody: body(obj({ tier: int('A tier the chain defines', { minimum: 0 }) })),
        responses: {
          '200': ok('The tier in force', obj({ address: str(), tier: int() })),
          ...errors('INVALID_ADDRESS', 'INVALID_REQUEST', 'INVALID_TOKEN', 'SERVICE_UNAVAILABLE'),
        },
      }),
    },
    '/admin/v1/prices/{symbol}': {
      post: op('adminPushPrice', 'admin', 'Push an index price (mark = index until market data derives it)', {
        security: admin,
        parameters: [symbolParam],
        requestBody: body(obj({ indexPrice: decimal('Positive, as a string') })),
        responses: {
          '200': ok(
            'Applied in every risk partition',
            obj({ symbol: str(), indexPrice: decimal(), markPrice: decimal(), time: int('ms') }),
          ),
          ...errors(
            'INVALID_AMOUNT',
            'INVALID_REQUEST',
            'INVALID_TOKEN',
            'INVALID_MARKET',
            'SERVICE_UNAVAILABLE',
          ),
        },
      }),
    },
  },
  components: {
    schemas,
    securitySchemes: {
      jwt: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'From POST /api/v1/auth/login',
      },
      adminToken: { type: 'http', scheme: 'bearer', description: 'The deployment’s ADMIN_TOKEN' },
    },
  },
};
