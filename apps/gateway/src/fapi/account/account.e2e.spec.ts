import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { DerivativesTradingUsdsFutures } from '@binance/derivatives-trading-usds-futures';
import { Module } from '@nestjs/common';
import { USDMClient } from 'binance';
import ccxt from 'ccxt';
import { Bus, BusModule } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import {
  accountHash,
  type AccountProjection,
  ADL_KEY,
  adlUserField,
  HOT_KEYS,
  type OrderRecord,
  TOPICS,
  topicPartitions,
  userIdForAddress,
} from '@perp/contracts';
import { AccountBook, type Chain, MarketRegistry, Money } from '@perp/domain';
import {
  createTestSchema,
  IncomeRepository,
  OrderRepository,
  type OrderRow,
  type TestSchema,
  TradeRepository,
} from '@perp/persistence';
import { CHAIN, loadAppConfig } from '@perp/runtime';
import {
  type AccessApp,
  authError,
  http,
  type KeyPair,
  signed,
  type SignedOptions,
  startAccessApp,
} from '../../access/access.harness';
import { ApiKeysService } from '../../access/api-keys/api-keys.service';
import { FapiGeneralController } from '../fapi-general.controller';
import { FapiAccountModule } from './fapi-account.module';
import { LISTEN_KEY_KEYS } from './listen-keys';

/** exchangeInfo, which ccxt loads before any private call. */
@Module({ controllers: [FapiGeneralController] })
class PublicFapiModule {}

const address = () => `0x${randomBytes(20).toString('hex')}`;
const BTC = 'BTCUSDT';
const ETH = 'ETHUSDT';

// Times of the seeded history (ms).
const T0 = 1_750_000_000_000; // an old order, cancelled long ago (Postgres only)
const T1 = 1_760_000_000_000; // O1 fills
const T2 = T1 + 60_000; // O2 partly fills
const T3 = T2 + 60_000; // O3 placed
const T4 = T1 + 3_600_000; // funding
const NOW = T4 + 1_000; // the projection's time

/**
 * The account endpoints over HTTP, on real Postgres and the Redis hot store, with an account built
 * by the domain's AccountBook exactly as a risk shard would hold it.
 */
describe('FAPI account endpoints (HTTP, Postgres, Redis hot store)', () => {
  let schema: TestSchema;
  let a: AccessApp;
  let hot: HotStore;
  const user = address();
  const other = address();
  const empty = address();
  let key: KeyPair;
  let otherKey: KeyPair;
  let emptyKey: KeyPair;
  const id = {
    o0: randomUUID(),
    o1: randomUUID(),
    o2: randomUUID(),
    o3: randomUUID(),
    otherOrder: randomUUID(),
    t1: randomUUID(),
    t2: randomUUID(),
    funding: randomUUID(),
  };
  let records: Record<'o1' | 'o2' | 'o3', OrderRecord>;

  const get = (path: string, params: Record<string, string> = {}, k = key, o: SignedOptions = {}) =>
    signed(a.url, path, k, { params, ...o });
  const userStream = (method: string, k: KeyPair | undefined, body?: string) =>
    http(`${a.url}/fapi/v1/listenKey`, {
      method,
      headers: {
        ...(k ? { 'x-mbx-apikey': k.api_key } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body,
    });
  const fapiError = (code: number) => ({ code, msg: expect.any(String) });

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await startAccessApp({
      schema: schema.schema,
      env: { REDIS_URL: 'redis://127.0.0.1:6379', UPSTREAM_TIMEOUT_MS: '1000' },
      cache: { prefix: `test:fapi-account:${randomBytes(4).toString('hex')}:` },
      // History rows are seeded straight into Postgres: an empty log has nothing to wait for.
      imports: [
        BusModule.forRoot(loadAppConfig({}), { topics: topicPartitions(), journal: false }),
        FapiAccountModule,
        PublicFapiModule,
      ],
    });
    hot = a.app.get<HotStore>(HOT_STORE);
    const keys = a.app.get(ApiKeysService, { strict: false });
    key = await keys.create(user, { label: 'account e2e' });
    otherKey = await keys.create(other, {});
    emptyKey = await keys.create(empty, {});
    await seed();
  });

  afterAll(async () => {
    if (hot)
      await hot.del(
        HOT_KEYS.account(user),
        HOT_KEYS.closedOrder(id.o1),
        HOT_KEYS.price(BTC),
        HOT_KEYS.price(ETH),
        ADL_KEY(BTC),
        LISTEN_KEY_KEYS.byUser(user),
      );
    await a?.close();
    await schema?.drop();
  });

  /** The account as a risk shard holds it: deposit, leverage, VIP tier, orders, fills. */
  async function seed() {
    const registry = a.app.get(MarketRegistry);
    const chain = a.app.get<Chain>(CHAIN);
    const book = new AccountBook({ markets: (s) => registry.find(s), feeTiers: chain.feeTiers });
    book.deposit(user, new Money('10000'), 'deposit-1');
    expect(book.setVipTier(user, 1)).toBe(true); // maker 0.00016, taker 0.0004
    expect(book.setLeverage(user, BTC, 10).ok).toBe(true);
    const place = (orderId: string, symbol: string, side: 'BUY' | 'SELL', qty: string, price: string) => {
      const r = book.placeOrder(user, {
        orderId,
        clientOrderId: `client-${orderId.slice(0, 8)}`,
        symbol,
        side,
        type: 'LIMIT',
        quantity: new Money(qty),
        price: new Money(price),
      });
      if (!r.ok) throw new Error(r.reason);
    };
    const fill = (
      orderId: string,
      side: 'BUY' | 'SELL',
      qty: string,
      price: string,
      closeQty: string,
      tradeId: string,
      time: number,
    ) =>
      book.settleFill({
        user,
        orderId,
        symbol: BTC,
        side,
        price: new Money(price),
        qty: new Money(qty),
        liquidity: 'MAKER',
        closeQty: new Money(closeQty),
        tradeId,
        time,
      });
    // O1: BUY 0.1 @ 50000, filled as maker: long 0.1, margin 500, commission 0.8.
    place(id.o1, BTC, 'BUY', '0.1', '50000');
    fill(id.o1, 'BUY', '0.1', '50000', '0', id.t1, T1);
    // O2: SELL 0.04 @ 52000 (closing: nothing frozen), 0.01 filled: +20 realized, commission 0.0832.
    place(id.o2, BTC, 'SELL', '0.04', '52000');
    fill(id.o2, 'SELL', '0.01', '52000', '0.01', id.t2, T2);
    // O3: BUY 1 ETH @ 3000 at the default 20x: 150.75 frozen.
    place(id.o3, ETH, 'BUY', '1', '3000');

    const base = {
      user,
      timeInForce: 'GTC',
      type: 'LIMIT',
      origType: 'LIMIT',
      reduceOnly: false,
      positionSide: 'BOTH' as const,
      stopPrice: '0.0',
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      selfTradePreventionMode: 'EXPIRE_TAKER',
    };
    records = {
      o1: {
        ...base,
        orderId: id.o1,
        symbol: BTC,
        status: 'FILLED',
        clientOrderId: `client-${id.o1.slice(0, 8)}`,
        price: '50000.0',
        avgPrice: '50000',
        origQty: '0.100',
        executedQty: '0.100',
        cumQuote: '5000',
        side: 'BUY',
        time: T1 - 1000,
        updateTime: T1,
      },
      o2: {
        ...base,
        orderId: id.o2,
        symbol: BTC,
        status: 'PARTIALLY_FILLED',
        clientOrderId: `client-${id.o2.slice(0, 8)}`,
        price: '52000.0',
        avgPrice: '52000',
        origQty: '0.040',
        executedQty: '0.010',
        cumQuote: '520',
        side: 'SELL',
        time: T2 - 1000,
        updateTime: T2,
      },
      o3: {
        ...base,
        orderId: id.o3,
        symbol: ETH,
        status: 'NEW',
        clientOrderId: `client-${id.o3.slice(0, 8)}`,
        price: '3000.00',
        avgPrice: '0.00',
        origQty: '1.000',
        executedQty: '0.000',
        cumQuote: '0',
        side: 'BUY',
        time: T3,
        updateTime: T3,
      },
    };
    const projection: AccountProjection = {
      v: 1,
      user,
      time: NOW,
      state: book.find(user)!.toState(),
      orders: [records.o2, records.o3],
    };
    await hot.hupdate(HOT_KEYS.account(user), accountHash(projection), [], { replace: true });
    await hot.set(HOT_KEYS.closedOrder(id.o1), JSON.stringify(records.o1), { ttlMs: 60_000 });
    await hot.hset(HOT_KEYS.price(BTC), { markPrice: '51000', indexPrice: '50990', time: String(NOW) });
    await hot.hset(HOT_KEYS.price(ETH), { markPrice: '3100', indexPrice: '3099', time: String(NOW) });
    // The engine's ADL ranking puts the BTC long in quantile 4.
    await hot.hset(ADL_KEY(BTC), { [adlUserField(user)]: 'L4' });

    // Postgres, as the projector writes it: O0 (old, cancelled), O1 (still NEW: the projector lags
    // behind the closed-order hot record), O2 stale (no fill yet); O3 not projected yet.
    const row = (r: OrderRecord, over: Partial<OrderRow> = {}): OrderRow => ({
      id: r.orderId,
      userId: userIdForAddress(r.user),
      symbol: r.symbol,
      clientOrderId: r.clientOrderId,
      side: r.side,
      type: r.type,
      origType: r.origType,
      timeInForce: r.timeInForce,
      price: r.price,
      origQty: r.origQty,
      executedQty: r.executedQty,
      cumQuote: r.cumQuote,
      avgPrice: r.avgPrice,
      status: r.status,
      reduceOnly: r.reduceOnly,
      priceProtect: r.priceProtect,
      stopPrice: r.stopPrice,
      workingType: r.workingType,
      positionSide: r.positionSide,
      selfTradePreventionMode: r.selfTradePreventionMode,
      createdAt: r.time,
      updatedAt: r.updateTime,
      ...over,
    });
    const orders = a.app.get(OrderRepository);
    const o0: OrderRecord = {
      ...records.o1,
      orderId: id.o0,
      clientOrderId: 'reused-client-id',
      status: 'CANCELED',
      price: '40000.0',
      avgPrice: '0.0',
      executedQty: '0.000',
      cumQuote: '0',
      selfTradePreventionMode: 'EXPIRE_BOTH',
      time: T0,
      updateTime: T0 + 5000,
    };
    await orders.upsert(row(o0));
    await orders.upsert(
      row(records.o1, {
        status: 'NEW',
        executedQty: '0.000',
        cumQuote: '0',
        avgPrice: '0.0',
        updatedAt: T1 - 1000,
      }),
    );
    await orders.upsert(
      row(records.o2, {
        status: 'NEW',
        executedQty: '0.000',
        cumQuote: '0',
        avgPrice: '0.0',
        updatedAt: T2 - 1000,
      }),
    );
    await orders.upsert(row({ ...records.o1, orderId: id.otherOrder, user: other }));

    const userId = userIdForAddress(user);
    const trade = { userId, symbol: BTC, commissionAsset: 'USDT', maker: true };
    await a.app.get(TradeRepository).insertMany([
      {
        ...trade,
        id: id.t1,
        orderId: id.o1,
        side: 'BUY',
        price: '50000',
        qty: '0.100',
        quoteQty: '5000',
        commission: '0.8',
        realizedPnl: '0',
        time: T1,
      },
      // The taker side of the same trade belongs to someone else.
      {
        ...trade,
        id: id.t1,
        orderId: randomUUID(),
        userId: userIdForAddress(other),
        side: 'SELL',
        price: '50000',
        qty: '0.100',
        quoteQty: '5000',
        commission: '2',
        realizedPnl: '0',
        maker: false,
        time: T1,
      },
      {
        ...trade,
        id: id.t2,
        orderId: id.o2,
        side: 'SELL',
        price: '52000',
        qty: '0.010',
        quoteQty: '520',
        commission: '0.0832',
        realizedPnl: '20',
        time: T2,
      },
    ]);
    const income = { userId, symbol: BTC, asset: 'USDT' };
    await a.app.get(IncomeRepository).insertMany([
      {
        ...income,
        id: '00000000-0000-4000-8000-000000000001',
        incomeType: 'COMMISSION',
        income: '-0.8',
        info: 'MAKER',
        tradeId: id.t1,
        time: T1,
      },
      {
        ...income,
        id: '00000000-0000-4000-8000-000000000002',
        incomeType: 'REALIZED_PNL',
        income: '20',
        info: 'MAKER',
        tradeId: id.t2,
        time: T2,
      },
      {
        ...income,
        id: '00000000-0000-4000-8000-000000000003',
        incomeType: 'COMMISSION',
        income: '-0.0832',
        info: 'MAKER',
        tradeId: id.t2,
        time: T2,
      },
      {
        ...income,
        id: '00000000-0000-4000-8000-000000000004',
        incomeType: 'FUNDING_FEE',
        income: '-0.459',
        info: '0.0001',
        tradeId: id.funding,
        time: T4,
      },
    ]);
  }

  const view = (r: OrderRecord) => {
    const { user: _u, ...wire } = r;
    void _u;
    return wire;
  };

  // wallet 10000 - 0.8 + 20 - 0.0832; long 0.09 @ 50000 marked at 51000: PnL 90, notional 4590,
  // maintenance 4590 x 0.004 = 18.36, position margin 450, order margin 150.75.
  const BALANCE = {
    walletBalance: '10019.11680000',
    unrealizedProfit: '90.00000000',
    marginBalance: '10109.11680000',
    maintMargin: '18.36000000',
    initialMargin: '600.75000000',
    positionInitialMargin: '450.00000000',
    openOrderInitialMargin: '150.75000000',
    crossWalletBalance: '10019.11680000',
    crossUnPnl: '90.00000000',
    availableBalance: '9508.36680000',
    maxWithdrawAmount: '9418.36680000',
  };
  const BTC_RISK_V2 = {
    symbol: BTC,
    positionAmt: '0.090',
    entryPrice: '50000',
    breakEvenPrice: '50040.0160064', // 50000 x 1.0004 / 0.9996 (taker rate of VIP 1)
    markPrice: '51000',
    unRealizedProfit: '90.00000000',
    liquidationPrice: '0', // the wallet covers the position at any price
    leverage: '10',
    maxNotionalValue: '230000000',
    marginType: 'cross',
    isolatedMargin: '0.00000000',
    isAutoAddMargin: 'false',
    positionSide: 'LONG',
    notional: '4590.00000000',
    isolatedWallet: '0.00000000',
    updateTime: NOW,
  };
  const ETH_RISK_V2 = {
    ...BTC_RISK_V2,
    symbol: ETH,
    positionAmt: '0.000',
    entryPrice: '0',
    breakEvenPrice: '0',
    markPrice: '3100',
    unRealizedProfit: '0.00000000',
    leverage: '20',
    maxNotionalValue: '12000000',
    positionSide: 'BOTH',
    notional: '0.00000000',
  };

  describe('balances and account', () => {
    it.each(['/fapi/v2/balance', '/fapi/v3/balance'])('GET %s: one USDT row', async (path) => {
      const res = await get(path);
      expect([res.status, res.body]).toEqual([
        200,
        [
          {
            accountAlias: user,
            asset: 'USDT',
            balance: BALANCE.walletBalance,
            crossWalletBalance: BALANCE.crossWalletBalance,
            crossUnPnl: BALANCE.crossUnPnl,
            availableBalance: BALANCE.availableBalance,
            maxWithdrawAmount: BALANCE.maxWithdrawAmount,
            marginAvailable: true,
            updateTime: NOW,
          },
        ],
      ]);
    });

    it('GET /fapi/v3/account: totals, the USDT asset, positions with a position or open orders', async () => {
      const res = await get('/fapi/v3/account');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        totalInitialMargin: '600.75000000',
        totalMaintMargin: '18.36000000',
        totalWalletBalance: BALANCE.walletBalance,
        totalUnrealizedProfit: '90.00000000',
        totalMarginBalance: BALANCE.marginBalance,
        totalPositionInitialMargin: '450.00000000',
        totalOpenOrderInitialMargin: '150.75000000',
        totalCrossWalletBalance: BALANCE.crossWalletBalance,
        totalCrossUnPnl: '90.00000000',
        availableBalance: BALANCE.availableBalance,
        maxWithdrawAmount: BALANCE.maxWithdrawAmount,
        assets: [{ asset: 'USDT', ...BALANCE, updateTime: NOW }],
        positions: [
          {
            symbol: BTC,
            positionSide: 'BOTH',
            positionAmt: '0.090',
            unrealizedProfit: '90.00000000',
            isolatedMargin: '0.00000000',
            notional: '4590.00000000',
            isolatedWallet: '0.00000000',
            initialMargin: '450.00000000',
            maintMargin: '18.36000000',
            updateTime: NOW,
          },
          {
            symbol: ETH,
            positionSide: 'BOTH',
            positionAmt: '0.000',
            unrealizedProfit: '0.00000000',
            isolatedMargin: '0.00000000',
            notional: '0.00000000',
            isolatedWallet: '0.00000000',
            initialMargin: '150.75000000',
            maintMargin: '0.00000000',
            updateTime: NOW,
          },
        ],
      });
    });

    it('GET /fapi/v2/account: flags, fee tier, and every market in positions', async () => {
      const res = await get('/fapi/v2/account');
      expect(res.status).toBe(200);
      const { assets, positions, ...top } = res.body;
      expect(top).toEqual({
        feeTier: 1,
        feeBurn: false,
        canTrade: true,
        canDeposit: true,
        canWithdraw: false,
        updateTime: 0,
        multiAssetsMargin: false,
        tradeGroupId: -1,
        totalInitialMargin: '600.75000000',
        totalMaintMargin: '18.36000000',
        totalWalletBalance: BALANCE.walletBalance,
        totalUnrealizedProfit: '90.00000000',
        totalMarginBalance: BALANCE.marginBalance,
        totalPositionInitialMargin: '450.00000000',
        totalOpenOrderInitialMargin: '150.75000000',
        totalCrossWalletBalance: BALANCE.crossWalletBalance,
        totalCrossUnPnl: '90.00000000',
        availableBalance: BALANCE.availableBalance,
        maxWithdrawAmount: BALANCE.maxWithdrawAmount,
      });
      expect(assets).toEqual([{ asset: 'USDT', ...BALANCE, updateTime: NOW, marginAvailable: true }]);
      expect(positions).toEqual([
        {
          symbol: BTC,
          initialMargin: '450.00000000',
          maintMargin: '18.36000000',
          unrealizedProfit: '90.00000000',
          positionInitialMargin: '450.00000000',
          openOrderInitialMargin: '0.00000000',
          leverage: '10',
          isolated: false,
          entryPrice: '50000',
          breakEvenPrice: '50040.0160064',
          maxNotional: '230000000',
          bidNotional: '0.00000000',
          askNotional: '1560.00000000', // O2's remaining 0.03 x 52000
          positionSide: 'BOTH',
          positionAmt: '0.090',
          updateTime: NOW,
        },
        {
          symbol: ETH,
          initialMargin: '150.75000000',
          maintMargin: '0.00000000',
          unrealizedProfit: '0.00000000',
          positionInitialMargin: '0.00000000',
          openOrderInitialMargin: '150.75000000',
          leverage: '20',
          isolated: false,
          entryPrice: '0',
          breakEvenPrice: '0',
          maxNotional: '12000000',
          bidNotional: '3000.00000000',
          askNotional: '0.00000000',
          positionSide: 'BOTH',
          positionAmt: '0.000',
          updateTime: NOW,
        },
        {
          symbol: 'SOLUSDT',
          initialMargin: '0.00000000',
          maintMargin: '0.00000000',
          unrealizedProfit: '0.00000000',
          positionInitialMargin: '0.00000000',
          openOrderInitialMargin: '0.00000000',
          leverage: '10',
          isolated: false,
          entryPrice: '0',
          breakEvenPrice: '0',
          maxNotional: '1000000',
          bidNotional: '0.00000000',
          askNotional: '0.00000000',
          positionSide: 'BOTH',
          positionAmt: '0.00',
          updateTime: 0,
        },
      ]);
    });

    it('a user the shards have never written has an empty account', async () => {
      const zero = '0.00000000';
      expect((await get('/fapi/v2/balance', {}, emptyKey)).body).toEqual([
        {
          accountAlias: empty,
          asset: 'USDT',
          balance: zero,
          crossWalletBalance: zero,
          crossUnPnl: zero,
          availableBalance: zero,
          maxWithdrawAmount: zero,
          marginAvailable: true,
          updateTime: 0,
        },
      ]);
      expect((await get('/fapi/v3/account', {}, emptyKey)).body.positions).toEqual([]);
      expect((await get('/fapi/v3/positionRisk', {}, emptyKey)).body).toEqual([]);
      expect((await get('/fapi/v1/openOrders', {}, emptyKey)).body).toEqual([]);
      expect((await get('/fapi/v1/commissionRate', { symbol: BTC }, emptyKey)).body).toEqual({
        symbol: BTC,
        makerCommissionRate: '0.0002',
        takerCommissionRate: '0.0005',
      });
    });
  });

  describe('position risk', () => {
    it.each(['/fapi/v1/positionRisk', '/fapi/v2/positionRisk'])(
      'GET %s: every market without symbol, one row with it',
      async (path) => {
        const all = await get(path);
        expect(all.status).toBe(200);
        expect(all.body).toEqual([
          BTC_RISK_V2,
          ETH_RISK_V2,
          {
            ...ETH_RISK_V2,
            symbol: 'SOLUSDT',
            positionAmt: '0.00',
            markPrice: '0',
            leverage: '10',
            maxNotionalValue: '1000000',
            updateTime: 0,
          },
        ]);
        expect((await get(path, { symbol: 'btc-usd' })).body).toEqual([BTC_RISK_V2]);
      },
    );

    it('GET /fapi/v3/positionRisk: symbols with a position or open orders', async () => {
      const BTC_V3 = {
        symbol: BTC,
        positionSide: 'LONG',
        positionAmt: '0.090',
        entryPrice: '50000',
        breakEvenPrice: '50040.0160064',
        markPrice: '51000',
        unRealizedProfit: '90.00000000',
        liquidationPrice: '0',
        isolatedMargin: '0.00000000',
        notional: '4590.00000000',
        marginAsset: 'USDT',
        isolatedWallet: '0.00000000',
        initialMargin: '450.00000000',
        maintMargin: '18.36000000',
        positionInitialMargin: '450.00000000',
        openOrderInitialMargin: '0.00000000',
        adl: 4,
        bidNotional: '0.00000000',
        askNotional: '1560.00000000',
        updateTime: NOW,
      };
      const ETH_V3 = {
        ...BTC_V3,
        symbol: ETH,
        positionSide: 'BOTH',
        positionAmt: '0.000',
        entryPrice: '0',
        breakEvenPrice: '0',
        markPrice: '3100',
        unRealizedProfit: '0.00000000',
        notional: '0.00000000',
        initialMargin: '150.75000000',
        maintMargin: '0.00000000',
        positionInitialMargin: '0.00000000',
        openOrderInitialMargin: '150.75000000',
        adl: 0,
        bidNotional: '3000.00000000',
        askNotional: '0.00000000',
      };
      expect((await get('/fapi/v3/positionRisk')).body).toEqual([BTC_V3, ETH_V3]);
      expect((await get('/fapi/v3/positionRisk', { symbol: ETH })).body).toEqual([ETH_V3]);
      expect((await get('/fapi/v3/positionRisk', { symbol: 'SOLUSDT' })).body).toEqual([]);
    });

    it.each(['/fapi/v1/positionRisk', '/fapi/v2/positionRisk', '/fapi/v3/positionRisk'])(
      '%s: an unknown symbol is -1121',
      async (path) => {
        const res = await get(path, { symbol: 'NOPEUSDT' });
        expect([res.status, res.body]).toEqual([400, fapiError(-1121)]);
      },
    );
  });

  describe('brackets and commission', () => {
    it('GET /fapi/v1/leverageBracket: the market brackets, one object with symbol', async () => {
      const one = await get('/fapi/v1/leverageBracket', { symbol: BTC });
      expect(one.status).toBe(200);
      expect(one.body.symbol).toBe(BTC);
      expect(one.body.brackets).toHaveLength(12);
      expect(one.body.brackets.slice(0, 3)).toEqual([
        {
          bracket: 1,
          initialLeverage: 125,
          notionalCap: 50000,
          notionalFloor: 0,
          maintMarginRatio: 0.004,
          cum: 0,
        },
        {
          bracket: 2,
          initialLeverage: 100,
          notionalCap: 600000,
          notionalFloor: 50000,
          maintMarginRatio: 0.005,
          cum: 50,
        },
        {
          bracket: 3,
          initialLeverage: 75,
          notionalCap: 3000000,
          notionalFloor: 600000,
          maintMarginRatio: 0.0065,
          cum: 950,
        },
      ]);
      const all = await get('/fapi/v1/leverageBracket');
      expect(all.body.map((b: { symbol: string }) => b.symbol)).toEqual([BTC, ETH, 'SOLUSDT']);
      // The user's 10x on BTCUSDT does not change them.
      expect(all.body[0]).toEqual(one.body);
      const bad = await get('/fapi/v1/leverageBracket', { symbol: 'NOPEUSDT' });
      expect([bad.status, bad.body]).toEqual([400, fapiError(-1121)]);
    });

    it('GET /fapi/v1/commissionRate: the live VIP tier, symbol required', async () => {
      expect((await get('/fapi/v1/commissionRate', { symbol: 'eth/usdt' })).body).toEqual({
        symbol: ETH,
        makerCommissionRate: '0.00016',
        takerCommissionRate: '0.0004',
      });
      const missing = await get('/fapi/v1/commissionRate');
      expect([missing.status, missing.body]).toEqual([400, fapiError(-1102)]);
      const unknown = await get('/fapi/v1/commissionRate', { symbol: 'NOPEUSDT' });
      expect([unknown.status, unknown.body]).toEqual([400, fapiError(-1121)]);
    });
  });

  describe('orders', () => {
    it('GET /fapi/v1/openOrders: the live open orders, by symbol or all', async () => {
      expect((await get('/fapi/v1/openOrders')).body).toEqual([view(records.o2), view(records.o3)]);
      expect((await get('/fapi/v1/openOrders', { symbol: ETH })).body).toEqual([view(records.o3)]);
      expect((await get('/fapi/v1/openOrders', { symbol: 'SOLUSDT' })).body).toEqual([]);
      const bad = await get('/fapi/v1/openOrders', { symbol: 'NOPEUSDT' });
      expect([bad.status, bad.body]).toEqual([400, fapiError(-1121)]);
    });

    it('GET /fapi/v1/openOrder: an open order by id or client id, -2013 when not open', async () => {
      expect((await get('/fapi/v1/openOrder', { symbol: BTC, orderId: id.o2 })).body).toEqual(
        view(records.o2),
      );
      const byClient = await get('/fapi/v1/openOrder', {
        symbol: ETH,
        origClientOrderId: records.o3.clientOrderId,
      });
      expect(byClient.body).toEqual(view(records.o3));
      for (const params of <Record<string, string>[]>[
        { symbol: BTC, orderId: id.o1 }, // filled
        { symbol: ETH, orderId: id.o2 }, // another symbol
        { symbol: BTC, origClientOrderId: 'nope' },
      ]) {
        const res = await get('/fapi/v1/openOrder', params);
        expect([params, res.status, res.body]).toEqual([params, 404, fapiError(-2013)]);
      }
      const neither = await get('/fapi/v1/openOrder', { symbol: BTC });
      expect([neither.status, neither.body]).toEqual([400, fapiError(-1102)]);
    });

    it('GET /fapi/v1/order: open, then the closed-order hot record, then Postgres', async () => {
      // Open: the live record wins over the stale Postgres row.
      expect((await get('/fapi/v1/order', { symbol: BTC, orderId: id.o2 })).body).toEqual(view(records.o2));
      // Closed within the day: the hot record (Postgres still says NEW).
      expect((await get('/fapi/v1/order', { symbol: BTC, orderId: id.o1 })).body).toEqual(view(records.o1));
      expect(
        (await get('/fapi/v1/order', { symbol: BTC, origClientOrderId: records.o1.clientOrderId })).body,
      ).toEqual(view(records.o1));
      // Older: Postgres only, every field as the order closed (its STP mode too).
      const o0 = await get('/fapi/v1/order', { symbol: BTC, orderId: id.o0.toUpperCase() });
      expect(o0.body).toEqual({
        ...view(records.o1),
        orderId: id.o0,
        clientOrderId: 'reused-client-id',
        status: 'CANCELED',
        selfTradePreventionMode: 'EXPIRE_BOTH',
        price: '40000.0',
        avgPrice: '0.0',
        executedQty: '0.000',
        cumQuote: '0',
        time: T0,
        updateTime: T0 + 5000,
      });
      expect(
        (await get('/fapi/v1/order', { symbol: BTC, origClientOrderId: 'reused-client-id' })).body,
      ).toEqual(o0.body);
    });

    it('GET /fapi/v1/order: -2013, -1100, -1102, -1121', async () => {
      for (const params of <Record<string, string>[]>[
        { symbol: BTC, orderId: randomUUID() },
        { symbol: ETH, orderId: id.o1 }, // wrong symbol
        { symbol: BTC, orderId: id.otherOrder }, // someone else's
        { symbol: BTC, origClientOrderId: 'never-used' },
      ]) {
        const res = await get('/fapi/v1/order', params);
        expect([params, res.status, res.body]).toEqual([params, 404, fapiError(-2013)]);
      }
      const cases: [Record<string, string>, number, number][] = [
        [{ symbol: BTC, orderId: '12345' }, 400, -1100],
        [{ symbol: BTC }, 400, -1102],
        [{ orderId: id.o1 }, 400, -1102],
        [{ symbol: 'NOPEUSDT', orderId: id.o1 }, 400, -1121],
      ];
      for (const [params, status, code] of cases) {
        const res = await get('/fapi/v1/order', params);
        expect([params, res.status, res.body]).toEqual([params, status, fapiError(code)]);
      }
    });

    it('GET /fapi/v1/allOrders: Postgres history merged with the live orders, oldest first', async () => {
      const o0 = (await get('/fapi/v1/order', { symbol: BTC, orderId: id.o0 })).body;
      expect((await get('/fapi/v1/allOrders', { symbol: BTC })).body).toEqual([
        o0,
        view(records.o1),
        view(records.o2),
      ]);
      expect((await get('/fapi/v1/allOrders', { symbol: ETH })).body).toEqual([view(records.o3)]);
      // The latest by update time…
      expect((await get('/fapi/v1/allOrders', { symbol: BTC, limit: '1' })).body).toEqual([view(records.o2)]);
      // …or the first from startTime, or from an order on.
      expect(
        (await get('/fapi/v1/allOrders', { symbol: BTC, startTime: String(T1 - 5000), limit: '1' })).body,
      ).toEqual([view(records.o1)]);
      expect((await get('/fapi/v1/allOrders', { symbol: BTC, orderId: id.o1 })).body).toEqual([
        view(records.o1),
        view(records.o2),
      ]);
      expect((await get('/fapi/v1/allOrders', { symbol: BTC, endTime: String(T1) })).body).toEqual([
        o0,
        view(records.o1),
      ]);
      expect((await get('/fapi/v1/allOrders', { symbol: BTC, orderId: randomUUID() })).body).toEqual([]);
      const cases: [Record<string, string>, number][] = [
        [{}, -1102],
        [{ symbol: 'NOPEUSDT' }, -1121],
        [{ symbol: BTC, orderId: 'x' }, -1100],
        [{ symbol: BTC, startTime: 'yesterday' }, -1100],
        [{ symbol: BTC, limit: '0' }, -1102],
      ];
      for (const [params, code] of cases) {
        const res = await get('/fapi/v1/allOrders', params);
        expect([params, res.status, res.body]).toEqual([params, 400, fapiError(code)]);
      }
    });
  });

  describe('trades and income', () => {
    const t1 = {
      symbol: BTC,
      id: id.t1,
      orderId: id.o1,
      side: 'BUY',
      price: '50000',
      qty: '0.100',
      realizedPnl: '0',
      quoteQty: '5000',
      commission: '0.8',
      commissionAsset: 'USDT',
      time: T1,
      positionSide: 'BOTH',
      maker: true,
      buyer: true,
    };
    const t2 = {
      ...t1,
      id: id.t2,
      orderId: id.o2,
      side: 'SELL',
      price: '52000',
      qty: '0.010',
      realizedPnl: '20',
      quoteQty: '520',
      commission: '0.0832',
      time: T2,
      buyer: false,
    };

    it('GET /fapi/v1/userTrades: the caller side of each fill, oldest first', async () => {
      expect((await get('/fapi/v1/userTrades', { symbol: BTC })).body).toEqual([t1, t2]);
      expect((await get('/fapi/v1/userTrades', { symbol: BTC, limit: '1' })).body).toEqual([t2]);
      expect(
        (await get('/fapi/v1/userTrades', { symbol: BTC, startTime: String(T1), limit: '1' })).body,
      ).toEqual([t1]);
      expect((await get('/fapi/v1/userTrades', { symbol: BTC, fromId: id.t2 })).body).toEqual([t2]);
      expect((await get('/fapi/v1/userTrades', { symbol: BTC, fromId: id.t1 })).body).toEqual([t1, t2]);
      expect((await get('/fapi/v1/userTrades', { symbol: BTC, fromId: randomUUID() })).body).toEqual([]);
      expect((await get('/fapi/v1/userTrades', { symbol: BTC, endTime: String(T1 - 1) })).body).toEqual([]);
      expect((await get('/fapi/v1/userTrades', { symbol: ETH })).body).toEqual([]);
      // The other side of t1 is the other user's.
      expect(
        (await get('/fapi/v1/userTrades', { symbol: BTC }, otherKey)).body.map(
          (t: { buyer: boolean }) => t.buyer,
        ),
      ).toEqual([false]);
      const cases: [Record<string, string>, number][] = [
        [{}, -1102],
        [{ symbol: 'NOPEUSDT' }, -1121],
        [{ symbol: BTC, fromId: '17' }, -1100],
        [{ symbol: BTC, endTime: '-5' }, -1102],
      ];
      for (const [params, code] of cases) {
        const res = await get('/fapi/v1/userTrades', params);
        expect([params, res.status, res.body]).toEqual([params, 400, fapiError(code)]);
      }
    });

    const income = (incomeType: string, amount: string, info: string, tradeId: string, time: number) => ({
      symbol: BTC,
      incomeType,
      income: amount,
      asset: 'USDT',
      info,
      time,
      tranId: tradeId,
      tradeId,
    });
    // Newest first; the two rows of t2 share a time and come by income row id, descending.
    const INCOME = [
      income('FUNDING_FEE', '-0.459', '0.0001', id.funding, T4),
      income('COMMISSION', '-0.0832', 'MAKER', id.t2, T2),
      income('REALIZED_PNL', '20', 'MAKER', id.t2, T2),
      income('COMMISSION', '-0.8', 'MAKER', id.t1, T1),
    ];

    it('GET /fapi/v1/income: newest first, by type, symbol, window and limit', async () => {
      expect((await get('/fapi/v1/income')).body).toEqual(INCOME);
      expect((await get('/fapi/v1/income', { incomeType: 'COMMISSION' })).body).toEqual([
        INCOME[1],
        INCOME[3],
      ]);
      expect((await get('/fapi/v1/income', { symbol: BTC, limit: '2' })).body).toEqual(INCOME.slice(0, 2));
      expect((await get('/fapi/v1/income', { startTime: String(T2), endTime: String(T2) })).body).toEqual(
        INCOME.slice(1, 3),
      );
      expect((await get('/fapi/v1/income', { symbol: ETH })).body).toEqual([]);
      // A Binance income type this exchange never produces finds nothing.
      expect((await get('/fapi/v1/income', { incomeType: 'TRANSFER' })).body).toEqual([]);
      const cases: [Record<string, string>, number][] = [
        [{ incomeType: 'BONUS' }, -1130],
        [{ symbol: 'NOPEUSDT' }, -1121],
        [{ startTime: '1.5' }, -1100],
        [{ limit: '0' }, -1102],
      ];
      for (const [params, code] of cases) {
        const res = await get('/fapi/v1/income', params);
        expect([params, res.status, res.body]).toEqual([params, 400, fapiError(code)]);
      }
    });

    it('GET /fapi/v1/fundingFeeHistory: FUNDING_FEE income with the settled rate', async () => {
      const { symbol, incomeType, income: amount, asset, info, time, tranId, tradeId } = INCOME[0];
      const row = {
        symbol,
        incomeType,
        income: amount,
        asset,
        fundingRate: '0.0001',
        info,
        time,
        tranId,
        tradeId,
      };
      expect((await get('/fapi/v1/fundingFeeHistory')).body).toEqual([row]);
      expect(
        (await get('/fapi/v1/fundingFeeHistory', { symbol: BTC, startTime: String(T4 + 1) })).body,
      ).toEqual([]);
      const bad = await get('/fapi/v1/fundingFeeHistory', { symbol: 'NOPEUSDT' });
      expect([bad.status, bad.body]).toEqual([400, fapiError(-1121)]);
    });
  });

  describe('listen keys (USER_STREAM: API key only)', () => {
    it('POST returns the active key, PUT extends it, DELETE closes it, then PUT is -1125', async () => {
      const first = await userStream('POST', key);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ listenKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const listenKey = first.body.listenKey as string;
      expect((await userStream('POST', key)).body).toEqual({ listenKey });
      expect(await hot.get(LISTEN_KEY_KEYS.byKey(listenKey))).toBe(user);
      expect((await userStream('PUT', key)).body).toEqual({ listenKey });
      expect((await userStream('PUT', key, `listenKey=${listenKey}`)).body).toEqual({ listenKey });
      const wrong = await userStream('PUT', key, `listenKey=${'0'.repeat(64)}`);
      expect([wrong.status, wrong.body]).toEqual([404, fapiError(-1125)]);
      // Another user has a key of their own.
      const others = (await userStream('POST', otherKey)).body.listenKey;
      expect(others).not.toBe(listenKey);
      await userStream('DELETE', otherKey);

      const closed = await userStream('DELETE', key);
      expect([closed.status, closed.body]).toEqual([200, {}]);
      expect(await hot.get(LISTEN_KEY_KEYS.byKey(listenKey))).toBeUndefined();
      const gone = await userStream('PUT', key);
      expect([gone.status, gone.body]).toEqual([404, fapiError(-1125)]);
      expect((await userStream('DELETE', key)).body).toEqual({});
      const fresh = (await userStream('POST', key)).body.listenKey;
      expect(fresh).not.toBe(listenKey);
    });

    it('refuses a missing or unknown API key in the FAPI auth envelope', async () => {
      const none = await userStream('POST', undefined);
      expect([none.status, none.body]).toEqual([401, authError('INVALID_API_KEY')]);
      const unknown = await userStream('POST', { api_key: 'ab'.repeat(32), secret_key: '' });
      expect([unknown.status, unknown.body]).toEqual([401, authError('INVALID_API_KEY')]);
    });

    it('works from the Binance clients, which send no signature', async () => {
      const usdm = new USDMClient({ api_key: key.api_key, api_secret: key.secret_key, baseUrl: a.url });
      const { listenKey } = await usdm.getFuturesUserDataListenKey();
      expect(listenKey).toMatch(/^[0-9a-f]{64}$/);
      await usdm.keepAliveFuturesUserDataListenKey();
      const official = new DerivativesTradingUsdsFutures({
        configurationRestAPI: { apiKey: key.api_key, apiSecret: key.secret_key, basePath: a.url },
      });
      const started = await official.restAPI.startUserDataStream();
      expect(await started.data()).toEqual({ listenKey });
      await usdm.closeFuturesUserDataListenKey();
      expect(await hot.get(LISTEN_KEY_KEYS.byUser(user))).toBeUndefined();
    });
  });

  describe('reserved endpoints', () => {
    it('POST /fapi/v1/positionMargin: -4046 (isolated margin is not on FAPI)', async () => {
      const res = await signed(a.url, '/fapi/v1/positionMargin', key, {
        method: 'POST',
        jsonBody: JSON.stringify({ symbol: BTC, amount: '10', type: 1 }),
      });
      expect([res.status, res.body]).toEqual([400, fapiError(-4046)]);
    });

    it('POST /fapi/v1/conditional/order: -1130 (conditional orders are algo orders)', async () => {
      const res = await signed(a.url, '/fapi/v1/conditional/order', key, {
        method: 'POST',
        jsonBody: JSON.stringify({ symbol: BTC, side: 'BUY', type: 'STOP_MARKET' }),
      });
      expect([res.status, res.body]).toEqual([400, fapiError(-1130)]);
    });

    it('both are authenticated first', async () => {
      const res = await signed(a.url, '/fapi/v1/positionMargin', key, {
        method: 'POST',
        secret: '0'.repeat(64),
      });
      expect([res.status, res.body]).toEqual([401, authError('SIGNATURE_INVALID')]);
    });
  });

  describe('signing', () => {
    it('every endpoint here is signed (USER_DATA)', async () => {
      for (const path of ['/fapi/v2/balance', '/fapi/v3/account', '/fapi/v1/order', '/fapi/v1/income']) {
        const res = await get(path, { symbol: BTC }, key, { secret: '0'.repeat(64) });
        expect([path, res.status, res.body]).toEqual([path, 401, authError('SIGNATURE_INVALID')]);
      }
    });
  });

  describe('bad input', () => {
    it('never answers 500: every refusal is a FAPI business error', async () => {
      const cases: [string, string][] = [
        ['/fapi/v1/positionRisk', 'symbol=BTCUSDT&symbol=ETHUSDT'],
        ['/fapi/v3/positionRisk', 'symbol='],
        ['/fapi/v1/openOrders', 'symbol=BTCUSDT&symbol=BTCUSDT'],
        ['/fapi/v1/order', `symbol=BTCUSDT&orderId=${id.o1}&orderId=${id.o2}`],
        ['/fapi/v1/order', `symbol=BTCUSDT&origClientOrderId=${'x'.repeat(5000)}`],
        ['/fapi/v1/order', 'symbol=BTCUSDT&orderId=1%27%20OR%201=1'],
        ['/fapi/v1/allOrders', 'symbol=BTCUSDT&limit=99999999999999999999'],
        ['/fapi/v1/allOrders', 'symbol=BTCUSDT&startTime=12345678901234567'],
        ['/fapi/v1/allOrders', `symbol=BTCUSDT&startTime=${T2}&endTime=${T1}`],
        ['/fapi/v1/userTrades', 'symbol=BTCUSDT&fromId=%00'],
        ['/fapi/v1/userTrades', 'symbol=BTCUSDT&limit=-1'],
        ['/fapi/v1/income', 'incomeType=COMMISSION&incomeType=FUNDING_FEE'],
        ['/fapi/v1/income', 'startTime=9007199254740993'],
        ['/fapi/v1/fundingFeeHistory', 'limit=abc'],
        ['/fapi/v1/leverageBracket', 'symbol=%E2%82%BF'],
        ['/fapi/v1/commissionRate', 'symbol[]=BTCUSDT'],
      ];
      for (const [path, query] of cases) {
        // Signed over the raw query, as sent (URLSearchParams would normalise it).
        const payload = `${query}&timestamp=${Date.now()}`;
        const signature = createHmac('sha256', key.secret_key).update(payload).digest('hex');
        const r = await http(`${a.url}${path}?${payload}&signature=${signature}`, {
          headers: { 'x-mbx-apikey': key.api_key },
        });
        expect([path, query, r.status < 500]).toEqual([path, query, true]);
        if (r.status !== 200) expect([path, query, r.body]).toEqual([path, query, fapiError(r.body.code)]);
      }
    });
  });

  describe('ccxt binanceusdm', () => {
    function client() {
      // With keys, ccxt's loadMarkets also asks Binance's spot wallet (sapi capital/config/getall)
      // for currencies; that is not a FAPI endpoint, so it is switched off (a client option).
      const c = new ccxt.binanceusdm({
        apiKey: key.api_key,
        secret: key.secret_key,
        options: { fetchCurrencies: false },
      });
      const api = c.urls['api'] as Record<string, string>;
      for (const name of Object.keys(api))
        if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', a.url);
      return c;
    }

    it('fetchBalance (GET /fapi/v3/account)', async () => {
      const balance = await client().fetchBalance();
      expect(balance['USDT']).toEqual({ free: 9508.3668, used: 600.75, total: 10109.1168 });
    });

    it('fetchPositions (GET /fapi/v1/leverageBracket, /fapi/v3/positionRisk)', async () => {
      const positions = await client().fetchPositions();
      expect(positions).toHaveLength(1);
      expect(positions[0]).toMatchObject({
        symbol: 'BTC/USDT:USDT',
        contracts: 0.09,
        side: 'long',
        entryPrice: 50000,
        markPrice: 51000,
        notional: 4590,
        unrealizedPnl: 90,
        marginMode: 'cross',
        maintenanceMargin: 18.36,
        maintenanceMarginPercentage: 0.004,
        timestamp: NOW,
      });
    });

    it('fetchOpenOrders, fetchOrder', async () => {
      const c = client();
      const open = await c.fetchOpenOrders('BTC/USDT:USDT');
      expect(open.map((o) => [o.id, o.status, o.side, o.price, o.amount, o.filled, o.remaining])).toEqual([
        [id.o2, 'open', 'sell', 52000, 0.04, 0.01, 0.03],
      ]);
      const filled = await c.fetchOrder(id.o1, 'BTC/USDT:USDT');
      expect(filled).toMatchObject({
        id: id.o1,
        status: 'closed',
        side: 'buy',
        price: 50000,
        amount: 0.1,
        filled: 0.1,
      });
      await expect(c.fetchOrder(randomUUID(), 'BTC/USDT:USDT')).rejects.toBeInstanceOf(ccxt.OrderNotFound);
    });

    it('fetchMyTrades (GET /fapi/v1/userTrades)', async () => {
      const trades = await client().fetchMyTrades('BTC/USDT:USDT');
      expect(
        trades.map((t) => [t.id, t.order, t.side, t.price, t.amount, t.cost, t.takerOrMaker, t.fee?.cost]),
      ).toEqual([
        [id.t1, id.o1, 'buy', 50000, 0.1, 5000, 'maker', 0.8],
        [id.t2, id.o2, 'sell', 52000, 0.01, 520, 'maker', 0.0832],
      ]);
    });
  });

  // Last: it leaves the caller's account-event partition ahead of a projector this app does not run.
  describe('read-your-writes of history', () => {
    it('a history read waits for the projector; when it never catches up: 500 -1001, no rows', async () => {
      await a.app.get(Bus).publish(TOPICS.accountEvents.name, user, { unprojected: true });
      const started = Date.now();
      for (const path of ['/fapi/v1/userTrades', '/fapi/v1/allOrders']) {
        const r = await get(path, { symbol: BTC });
        expect(r.status).toBe(500);
        expect(r.body).toEqual(fapiError(-1001));
      }
      const income = await get('/fapi/v1/income');
      expect([income.status, income.body]).toEqual([500, fapiError(-1001)]);
      // Each waited for UPSTREAM_TIMEOUT_MS (1 s) first.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
      // Live state does not wait: the open orders come from the hot store.
      expect((await get('/fapi/v1/openOrders', { symbol: BTC })).status).toBe(200);
    });
  });
});
