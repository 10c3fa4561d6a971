import { DerivativesTradingUsdsFutures } from '@binance/derivatives-trading-usds-futures';
import { USDMClient } from 'binance';
import ccxt from 'ccxt';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, ccxtClient, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';
const CCXT_BTC = 'BTC/USDT:USDT';

// Two users trade with each other through each real Binance client, pointed here by base URL only.
describe('Binance USDⓈ-M clients trading on the embedded exchange', () => {
  let ex: InProcessExchange;

  const admin = (path: string, body: unknown) => adminRequest(ex.url, ex.adminToken, path, 'POST', body);
  const index = async (price: string) =>
    expect((await admin(`/prices/${BTC}`, { indexPrice: price })).status).toBe(200);

  /** A real wallet, logged in, with an API key and a 10000 USDT admin deposit. */
  async function trader(): Promise<Trader> {
    const t = await newTrader(ex.url, undefined, 'clients');
    const dep = await admin('/deposits', { address: t.address, asset: 'USDT', amount: '10000' });
    expect([dep.status, dep.body.balance]).toEqual([200, '10000']);
    return t;
  }

  beforeAll(async () => {
    // Figures at mark = index: a market without premium and interest has its index as mark.
    ex = await startInProcessExchange({}, { markets: noInterest });
  });

  afterAll(async () => {
    await ex?.close();
  });

  describe('ccxt binanceusdm', () => {
    let a: Trader;
    let b: Trader;
    let ca: InstanceType<typeof ccxt.binanceusdm>;
    let cb: InstanceType<typeof ccxt.binanceusdm>;
    let restingSell: string;

    const client = (t: Trader) => ccxtClient(ex.url, t);

    beforeAll(async () => {
      a = await trader();
      b = await trader();
      ca = client(a);
      cb = client(b);
    });

    it('loadMarkets, setLeverage, fetchBalance', async () => {
      const markets = await ca.loadMarkets();
      expect(markets[CCXT_BTC]).toMatchObject({
        id: BTC,
        type: 'swap',
        linear: true,
        settle: 'USDT',
        precision: { amount: 0.001, price: 0.1 },
      });
      await cb.loadMarkets();
      for (const c of [ca, cb])
        expect(await c.setLeverage(10, CCXT_BTC)).toMatchObject({ symbol: BTC, leverage: 10 });
      expect((await ca.fetchBalance())['USDT']).toEqual({ free: 10000, used: 0, total: 10000 });
    });

    it('createOrder limit rests; fetchOpenOrders, cancelOrder; the frozen margin shows as used', async () => {
      await index('50000');
      const sell = await ca.createOrder(CCXT_BTC, 'limit', 'sell', 0.1, 50000);
      expect(sell).toMatchObject({ status: 'open', side: 'sell', price: 50000, amount: 0.1, filled: 0 });
      restingSell = sell.id!;
      const bid = await ca.createOrder(CCXT_BTC, 'limit', 'buy', 0.01, 40000);
      expect(bid.status).toBe('open');
      const open = await ca.fetchOpenOrders(CCXT_BTC);
      expect(open.map((o) => [o.id, o.side, o.price, o.amount])).toEqual([
        [sell.id, 'sell', 50000, 0.1],
        [bid.id, 'buy', 40000, 0.01],
      ]);
      expect(await ca.cancelOrder(bid.id!, CCXT_BTC)).toMatchObject({ id: bid.id, status: 'canceled' });
      expect(await ca.fetchOrder(bid.id!, CCXT_BTC)).toMatchObject({
        id: bid.id,
        status: 'canceled',
        filled: 0,
      });
      expect((await ca.fetchOpenOrders(CCXT_BTC)).map((o) => o.id)).toEqual([sell.id]);
      // 0.1 x 50000 / 10 x 1.005 frozen for the resting sell.
      expect((await ca.fetchBalance())['USDT']).toEqual({ free: 9497.5, used: 502.5, total: 10000 });
    });

    it('cancelOrders by ids and by client order ids (the lower-case, unquoted lists ccxt sends)', async () => {
      const bids = await Promise.all(
        [39000, 39100, 39200].map((price) => ca.createOrder(CCXT_BTC, 'limit', 'buy', 0.01, price)),
      );
      const byId = await ca.cancelOrders([bids[0]!.id!, bids[1]!.id!], CCXT_BTC);
      expect(byId.map((o) => [o.id, o.status])).toEqual([
        [bids[0]!.id, 'canceled'],
        [bids[1]!.id, 'canceled'],
      ]);
      const byClientId = await ca.cancelOrders([], CCXT_BTC, { clientOrderIds: [bids[2]!.clientOrderId] });
      expect(byClientId.map((o) => [o.id, o.status])).toEqual([[bids[2]!.id, 'canceled']]);
      expect((await ca.fetchOpenOrders(CCXT_BTC)).map((o) => o.id)).toEqual([restingSell]);
    });

    it('createOrder market crosses the other user; fetchOrder, fetchPositions, fetchBalance', async () => {
      const buy = await cb.createOrder(CCXT_BTC, 'market', 'buy', 0.1);
      expect(buy).toMatchObject({ status: 'closed', filled: 0.1, average: 50000, cost: 5000 });
      // The maker's settlement arrives through its own partition.
      const filled = await eventually(
        () => ca.fetchOrder(restingSell, CCXT_BTC),
        (o) => o.status === 'closed',
      );
      expect(filled).toMatchObject({ id: restingSell, status: 'closed', filled: 0.1, average: 50000 });
      const pa = await eventually(
        () => ca.fetchPositions([CCXT_BTC]),
        (p) => p.length === 1,
      );
      const pb = await cb.fetchPositions([CCXT_BTC]);
      // Mark = index (50000): no unrealized PnL; position margin 5000 / 10, maintenance 5000 x 0.004.
      const row = { symbol: CCXT_BTC, contracts: 0.1, entryPrice: 50000, markPrice: 50000, notional: 5000 };
      const margins = { unrealizedPnl: 0, initialMargin: 500, maintenanceMargin: 20, marginMode: 'cross' };
      expect(pa).toEqual([expect.objectContaining({ ...row, ...margins, side: 'short' })]);
      expect(pb).toEqual([expect.objectContaining({ ...row, ...margins, side: 'long' })]);
      // a: 10000 - 1 (maker 5000 x 0.0002); b: 10000 - 2.5 (taker 5000 x 0.0005); 500 used each.
      expect((await ca.fetchBalance())['USDT']).toEqual({ free: 9499, used: 500, total: 9999 });
      expect((await cb.fetchBalance())['USDT']).toEqual({ free: 9497.5, used: 500, total: 9997.5 });
    });

    it('closing at 51000 realizes PnL; balances are deposits - fees + PnL; fetchMyTrades', async () => {
      await index('51000');
      const ask = await cb.createOrder(CCXT_BTC, 'limit', 'sell', 0.1, 51000);
      expect(ask.status).toBe('open');
      const close = await ca.createOrder(CCXT_BTC, 'market', 'buy', 0.1);
      expect(close).toMatchObject({ status: 'closed', filled: 0.1, average: 51000, cost: 5100 });
      // a: 10000 - 1 (maker) - 100 (PnL: (50000 - 51000) x 0.1) - 2.55 (taker 5100 x 0.0005)
      expect((await ca.fetchBalance())['USDT']).toEqual({ free: 9896.45, used: 0, total: 9896.45 });
      // b: 10000 - 2.5 (taker) + 100 (PnL) - 1.02 (maker 5100 x 0.0002)
      const bb = await eventually(
        () => cb.fetchBalance(),
        (x) => x['USDT']?.total === 10096.48,
      );
      expect(bb['USDT']).toEqual({ free: 10096.48, used: 0, total: 10096.48 });
      expect(await ca.fetchPositions([CCXT_BTC])).toEqual([]);
      expect(await cb.fetchPositions([CCXT_BTC])).toEqual([]);
      const trades = (c: typeof ca) =>
        eventually(
          () => c.fetchMyTrades(CCXT_BTC),
          (t) => t.length === 2,
        );
      const view = (t: Awaited<ReturnType<typeof ca.fetchMyTrades>>) =>
        t.map((x) => [x.side, x.price, x.amount, x.cost, x.takerOrMaker, x.fee?.cost, x.info['realizedPnl']]);
      const ta = await trades(ca);
      const tb = await trades(cb);
      expect(view(ta)).toEqual([
        ['sell', 50000, 0.1, 5000, 'maker', 1, '0'],
        ['buy', 51000, 0.1, 5100, 'taker', 2.55, '-100'],
      ]);
      expect(view(tb)).toEqual([
        ['buy', 50000, 0.1, 5000, 'taker', 2.5, '0'],
        ['sell', 51000, 0.1, 5100, 'maker', 1.02, '100'],
      ]);
      // One fill, two sides: the same trade ids.
      expect(tb.map((t) => t.id)).toEqual(ta.map((t) => t.id));
      expect(ta[0]!.order).toBe(restingSell);
    });
  });

  describe('binance USDMClient', () => {
    let c: Trader;
    let d: Trader;
    let uc: USDMClient;
    let ud: USDMClient;

    beforeAll(async () => {
      c = await trader();
      d = await trader();
      uc = new USDMClient({ api_key: c.key.api_key, api_secret: c.key.secret_key, baseUrl: ex.url });
      ud = new USDMClient({ api_key: d.key.api_key, api_secret: d.key.secret_key, baseUrl: ex.url });
    });

    it('submitNewOrder limit and market, cancelOrder', async () => {
      await index('50000');
      const sell = await uc.submitNewOrder({
        symbol: BTC,
        side: 'SELL',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: 0.2,
        price: 50000,
      });
      expect(sell).toMatchObject({ status: 'NEW', side: 'SELL', origQty: '0.200', price: '50000.0' });
      // The package warns about custom ids without its broker prefix (getOrderIdPrefix()).
      const bidId = `${uc.getOrderIdPrefix()}-bid-1`;
      const bid = await uc.submitNewOrder({
        symbol: BTC,
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: 0.01,
        price: 40000,
        newClientOrderId: bidId,
      });
      expect(bid).toMatchObject({ status: 'NEW', clientOrderId: bidId });
      expect(await uc.cancelOrder({ symbol: BTC, origClientOrderId: bidId })).toMatchObject({
        orderId: bid.orderId,
        status: 'CANCELED',
      });
      const buy = await ud.submitNewOrder({ symbol: BTC, side: 'BUY', type: 'MARKET', quantity: 0.2 });
      expect(buy).toMatchObject({
        status: 'FILLED',
        executedQty: '0.200',
        avgPrice: '50000',
        cumQuote: '10000',
      });
      await index('52000');
      const bid2 = await uc.submitNewOrder({
        symbol: BTC,
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: 0.1,
        price: 52000,
      });
      expect(bid2.status).toBe('NEW');
      const sell2 = await ud.submitNewOrder({ symbol: BTC, side: 'SELL', type: 'MARKET', quantity: 0.1 });
      expect(sell2).toMatchObject({ status: 'FILLED', executedQty: '0.100', avgPrice: '52000' });
      // The mark moves at the next index tick: median(price 1 = index, index + basis, last 52000) = 52000,
      // with the last price as market data projected it (it runs after the order path's replies).
      await eventually(
        async () =>
          (await fetch(`${ex.url}/fapi/v1/ticker/price?symbol=${BTC}`)).json() as Promise<{ price: string }>,
        (t) => t.price === '52000.0',
      );
      await index('52000');
    });

    it('getBalance, getAccountInformation, getPositions: positions opposite and equal, exact balances', async () => {
      // c: 10000 - 2 (maker 10000 x 0.0002) - 200 (PnL: (50000 - 52000) x 0.1) - 1.04 (maker 5200 x 0.0002)
      // d: 10000 - 5 (taker 10000 x 0.0005) + 200 (PnL) - 2.6 (taker 5200 x 0.0005)
      // Both: 0.1 left at entry 50000, mark 52000; margin 0.1 x 50000 / 20 (default leverage) = 250.
      const balance = { asset: 'USDT', marginAvailable: true };
      expect(
        await eventually(
          () => uc.getBalance(),
          (r) => r[0]?.balance === '9796.96000000',
        ),
      ).toEqual([
        expect.objectContaining({
          ...balance,
          accountAlias: c.address,
          balance: '9796.96000000',
          crossWalletBalance: '9796.96000000',
          crossUnPnl: '-200.00000000',
          availableBalance: '9346.96000000',
          maxWithdrawAmount: '9346.96000000',
        }),
      ]);
      expect(
        await eventually(
          () => ud.getBalance(),
          (r) => r[0]?.balance === '10192.40000000',
        ),
      ).toEqual([
        expect.objectContaining({
          ...balance,
          accountAlias: d.address,
          balance: '10192.40000000',
          crossWalletBalance: '10192.40000000',
          crossUnPnl: '200.00000000',
          availableBalance: '10142.40000000',
          maxWithdrawAmount: '9942.40000000',
        }),
      ]);
      const info = await uc.getAccountInformation();
      expect(info).toMatchObject({
        feeTier: 0,
        canTrade: true,
        totalWalletBalance: '9796.96000000',
        totalUnrealizedProfit: '-200.00000000',
        totalMarginBalance: '9596.96000000',
        totalPositionInitialMargin: '250.00000000',
        totalOpenOrderInitialMargin: '0.00000000',
        totalMaintMargin: '20.80000000',
        availableBalance: '9346.96000000',
      });
      expect(info.positions.find((p) => p.symbol === BTC)).toMatchObject({
        positionAmt: '-0.100',
        entryPrice: '50000',
        unrealizedProfit: '-200.00000000',
        initialMargin: '250.00000000',
        leverage: '20',
      });
      expect((await ud.getAccountInformation()).positions.find((p) => p.symbol === BTC)).toMatchObject({
        positionAmt: '0.100',
        entryPrice: '50000',
        unrealizedProfit: '200.00000000',
      });
      const row = {
        symbol: BTC,
        entryPrice: '50000',
        markPrice: '52000',
        leverage: '20',
        marginType: 'cross',
      };
      expect(await uc.getPositions({ symbol: BTC })).toEqual([
        expect.objectContaining({
          ...row,
          positionAmt: '-0.100',
          unRealizedProfit: '-200.00000000',
          notional: '-5200.00000000',
          positionSide: 'SHORT',
        }),
      ]);
      expect(await ud.getPositions({ symbol: BTC })).toEqual([
        expect.objectContaining({
          ...row,
          positionAmt: '0.100',
          unRealizedProfit: '200.00000000',
          notional: '5200.00000000',
          positionSide: 'LONG',
        }),
      ]);
    });

    it('getAccountTrades: both fills on each side (projected asynchronously)', async () => {
      const trades = (u: USDMClient) =>
        eventually(
          () => u.getAccountTrades({ symbol: BTC }),
          (t) => t.length === 2,
        );
      const view = (t: Awaited<ReturnType<USDMClient['getAccountTrades']>>) =>
        t.map((x) => [x.side, x.price, x.qty, x.quoteQty, x.maker, x.commission, x.realizedPnl]);
      const tc = await trades(uc);
      const td = await trades(ud);
      expect(view(tc)).toEqual([
        ['SELL', '50000.0', '0.200', '10000', true, '2', '0'],
        ['BUY', '52000.0', '0.100', '5200', true, '1.04', '-200'],
      ]);
      expect(view(td)).toEqual([
        ['BUY', '50000.0', '0.200', '10000', false, '5', '0'],
        ['SELL', '52000.0', '0.100', '5200', false, '2.6', '200'],
      ]);
      expect(td.map((t) => t.id)).toEqual(tc.map((t) => t.id));
    });
  });

  describe('official connector @binance/derivatives-trading-usds-futures', () => {
    let e: Trader;
    let f: Trader;
    let oe: DerivativesTradingUsdsFutures['restAPI'];
    let of: DerivativesTradingUsdsFutures['restAPI'];

    const connect = (t: Trader) =>
      new DerivativesTradingUsdsFutures({
        configurationRestAPI: { apiKey: t.key.api_key, apiSecret: t.key.secret_key, basePath: ex.url },
      }).restAPI;

    beforeAll(async () => {
      e = await trader();
      f = await trader();
      oe = connect(e);
      of = connect(f);
    });

    it('newOrder, queryOrder, cancelOrder', async () => {
      await index('48000');
      const bid = await (
        await oe.newOrder({
          symbol: BTC,
          side: 'BUY' as never,
          type: 'LIMIT' as never,
          timeInForce: 'GTC' as never,
          quantity: 0.05,
          price: 48000,
          newClientOrderId: 'official-bid-1',
        })
      ).data();
      expect(bid).toMatchObject({ status: 'NEW', clientOrderId: 'official-bid-1' });
      const q = await (await oe.queryOrder({ symbol: BTC, origClientOrderId: 'official-bid-1' })).data();
      expect(q).toMatchObject({ status: 'NEW', orderId: bid.orderId });
      const sell = await (
        await of.newOrder({ symbol: BTC, side: 'SELL' as never, type: 'MARKET' as never, quantity: 0.05 })
      ).data();
      expect(sell).toMatchObject({ status: 'FILLED', executedQty: '0.050', avgPrice: '48000' });
      const done = await eventually(
        async () => (await oe.queryOrder({ symbol: BTC, origClientOrderId: 'official-bid-1' })).data(),
        (o) => o.status === 'FILLED',
      );
      expect(done).toMatchObject({ status: 'FILLED', executedQty: '0.050' });
      const ask = await (
        await of.newOrder({
          symbol: BTC,
          side: 'SELL' as never,
          type: 'LIMIT' as never,
          timeInForce: 'GTC' as never,
          quantity: 0.01,
          price: 60000,
          newClientOrderId: 'official-ask-1',
        })
      ).data();
      expect(ask.status).toBe('NEW');
      const canceled = await (
        await of.cancelOrder({ symbol: BTC, origClientOrderId: 'official-ask-1' })
      ).data();
      expect(canceled).toMatchObject({ status: 'CANCELED', orderId: ask.orderId });
      await index('47000');
      const close = await (
        await of.newOrder({
          symbol: BTC,
          side: 'BUY' as never,
          type: 'LIMIT' as never,
          timeInForce: 'GTC' as never,
          quantity: 0.02,
          price: 47000,
        })
      ).data();
      expect(close.status).toBe('NEW');
      const hit = await (
        await oe.newOrder({ symbol: BTC, side: 'SELL' as never, type: 'MARKET' as never, quantity: 0.02 })
      ).data();
      expect(hit).toMatchObject({ status: 'FILLED', executedQty: '0.020', avgPrice: '47000' });
    });

    it('futuresAccountBalanceV3, accountInformationV3, positionInformationV3: exact figures', async () => {
      // e: 10000 - 0.48 (maker 2400 x 0.0002) - 20 (PnL: (47000 - 48000) x 0.02) - 0.47 (taker 940 x 0.0005)
      // f: 10000 - 1.2 (taker 2400 x 0.0005) + 20 (PnL) - 0.188 (maker 940 x 0.0002)
      // Both: 0.03 left at entry 48000, mark 47000; margin 0.03 x 48000 / 20 = 72; maint 1410 x 0.004.
      const balance = async (api: typeof oe) => (await api.futuresAccountBalanceV3()).data();
      expect(
        await eventually(
          () => balance(oe),
          (r) => r[0]?.balance === '9979.05000000',
        ),
      ).toEqual([
        expect.objectContaining({
          asset: 'USDT',
          balance: '9979.05000000',
          crossWalletBalance: '9979.05000000',
          crossUnPnl: '-30.00000000',
          availableBalance: '9877.05000000',
          maxWithdrawAmount: '9877.05000000',
        }),
      ]);
      expect(
        await eventually(
          () => balance(of),
          (r) => r[0]?.balance === '10018.61200000',
        ),
      ).toEqual([
        expect.objectContaining({
          asset: 'USDT',
          balance: '10018.61200000',
          crossWalletBalance: '10018.61200000',
          crossUnPnl: '30.00000000',
          availableBalance: '9976.61200000',
          maxWithdrawAmount: '9946.61200000',
        }),
      ]);
      const margins = { initialMargin: '72.00000000', maintMargin: '5.64000000' };
      const ie = await (await oe.accountInformationV3()).data();
      expect(ie).toMatchObject({
        totalWalletBalance: '9979.05000000',
        totalUnrealizedProfit: '-30.00000000',
        totalMarginBalance: '9949.05000000',
        totalInitialMargin: '72.00000000',
        totalMaintMargin: '5.64000000',
        availableBalance: '9877.05000000',
        assets: [expect.objectContaining({ asset: 'USDT', walletBalance: '9979.05000000' })],
        positions: [
          expect.objectContaining({
            ...margins,
            symbol: BTC,
            positionSide: 'BOTH',
            positionAmt: '0.030',
            unrealizedProfit: '-30.00000000',
            notional: '1410.00000000',
          }),
        ],
      });
      const iff = await (await of.accountInformationV3()).data();
      expect(iff).toMatchObject({
        totalWalletBalance: '10018.61200000',
        totalMarginBalance: '10048.61200000',
        positions: [
          expect.objectContaining({ ...margins, positionAmt: '-0.030', notional: '-1410.00000000' }),
        ],
      });
      const row = { ...margins, symbol: BTC, entryPrice: '48000', markPrice: '47000', marginAsset: 'USDT' };
      expect(await (await oe.positionInformationV3({ symbol: BTC })).data()).toEqual([
        expect.objectContaining({
          ...row,
          positionSide: 'LONG',
          positionAmt: '0.030',
          unRealizedProfit: '-30.00000000',
          notional: '1410.00000000',
        }),
      ]);
      expect(await (await of.positionInformationV3({ symbol: BTC })).data()).toEqual([
        expect.objectContaining({
          ...row,
          positionSide: 'SHORT',
          positionAmt: '-0.030',
          unRealizedProfit: '30.00000000',
          notional: '-1410.00000000',
        }),
      ]);
    });

    it('accountTradeList: both fills on each side (projected asynchronously)', async () => {
      const trades = (api: typeof oe) =>
        eventually(
          async () => (await api.accountTradeList({ symbol: BTC })).data(),
          (t) => t.length === 2,
        );
      const view = (t: Awaited<ReturnType<typeof trades>>) =>
        t.map((x) => [x.side, x.price, x.qty, x.quoteQty, x.maker, x.commission, x.realizedPnl]);
      const te = await trades(oe);
      const tf = await trades(of);
      expect(view(te)).toEqual([
        ['BUY', '48000.0', '0.050', '2400', true, '0.48', '0'],
        ['SELL', '47000.0', '0.020', '940', false, '0.47', '-20'],
      ]);
      expect(view(tf)).toEqual([
        ['SELL', '48000.0', '0.050', '2400', false, '1.2', '0'],
        ['BUY', '47000.0', '0.020', '940', true, '0.188', '20'],
      ]);
      expect(tf.map((t) => t.id)).toEqual(te.map((t) => t.id));
    });
  });
});
