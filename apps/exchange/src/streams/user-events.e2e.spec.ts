import { Bus } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import { MARKET_EVENTS, USER_EVENTS } from '@perp/gateway';
import { http, signed } from '@perp/testing';
import type { InProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, type Trader } from '../trading/trading.harness';
import { FrameConformance } from './frame-conformance.harness';
import { type StreamClient, StreamClients } from './stream-client.harness';
import { tradingExchange } from './streams.harness';

jest.setTimeout(60_000);

const BTC = 'BTCUSDT';

// The user data events beyond orders and balances (algo orders, leverage, margin calls) and the
// public liquidation streams, each from what the risk shard publishes on the account events topic.
describe('user data events: ALGO_UPDATE, ACCOUNT_CONFIG_UPDATE, MARGIN_CALL; forceOrder streams', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;
  const clients = new StreamClients(() => ex.url);
  const conformance = new FrameConformance([...USER_EVENTS, ...MARKET_EVENTS]);
  const userStream = async (t: Trader): Promise<StreamClient> => {
    const key = await http(`${ex.url}/fapi/v1/listenKey`, {
      method: 'POST',
      headers: { 'x-mbx-apikey': t.key.api_key },
    });
    return conformance.watch(await clients.open(`/ws/${key.body.listenKey as string}`));
  };
  const fapi = (t: Trader, path: string, method: 'POST' | 'DELETE', params: Record<string, string>) =>
    signed(ex.url, path, t.key, { method, params: { symbol: BTC, ...params } });
  let seq = 0;
  /** An account event on the topic, as the risk shard would publish it. */
  const publishAccountEvent = (event: Record<string, unknown>) =>
    ex.app.get(Bus).publish(TOPICS.accountEvents.name, String(event.user ?? 'insurance'), {
      id: `test-input/0/${++seq}/0`,
      v: 1,
      time: 1_700_000_000_000 + seq,
      ...event,
    });

  beforeAll(async () => {
    let traders: Trader[];
    ({ ex, traders } = await tradingExchange(2, '10000'));
    [a, b] = traders as [Trader, Trader];
  });

  afterAll(async () => {
    await clients.closeAll();
    await ex?.close();
  });

  it('ACCOUNT_CONFIG_UPDATE from a leverage change; setting the same leverage again sends nothing', async () => {
    const s = await userStream(a);
    expect((await fapi(a, '/fapi/v1/leverage', 'POST', { leverage: '7' })).status).toBe(200);
    expect(await s.next((m) => m.e === 'ACCOUNT_CONFIG_UPDATE')).toEqual({
      e: 'ACCOUNT_CONFIG_UPDATE',
      E: expect.any(Number),
      T: expect.any(Number),
      ac: { s: BTC, l: 7 },
    });
    expect((await fapi(a, '/fapi/v1/leverage', 'POST', { leverage: '7' })).status).toBe(200);
    expect((await fapi(a, '/fapi/v1/leverage', 'POST', { leverage: '9' })).status).toBe(200);
    // The next one is 9's: the repeat of 7 published nothing.
    expect((await s.next((m) => m.e === 'ACCOUNT_CONFIG_UPDATE')).ac).toEqual({ s: BTC, l: 9 });
  });

  it('ALGO_UPDATE follows a real algo order: placed (NEW), fired by the mark (TRIGGERED), then done', async () => {
    const s = await userStream(b);
    const placed = await fapi(b, '/fapi/v1/algoOrder', 'POST', {
      algoType: 'CONDITIONAL',
      side: 'BUY',
      type: 'STOP_MARKET',
      triggerPrice: '51000',
      quantity: '0.01',
      clientAlgoId: 'ws-stop-1',
      workingType: 'MARK_PRICE',
    });
    expect(placed.status).toBe(200);
    const algoId = placed.body.algoId as number;
    expect(await s.next((m) => m.e === 'ALGO_UPDATE')).toEqual({
      e: 'ALGO_UPDATE',
      T: placed.body.updateTime,
      E: expect.any(Number),
      o: {
        caid: 'ws-stop-1',
        aid: algoId,
        at: 'CONDITIONAL',
        o: 'STOP_MARKET',
        s: BTC,
        S: 'BUY',
        ps: 'BOTH',
        f: 'GTC',
        q: '0.010',
        X: 'NEW',
        ai: '',
        ap: '0',
        aq: '0',
        act: '0',
        tp: '51000.0',
        p: placed.body.price,
        V: 'NONE',
        wt: 'MARK_PRICE',
        pm: 'NONE',
        cp: false,
        pP: false,
        R: false,
        tt: 0,
        gtd: 0,
        rm: '',
      },
    });
    // The mark passes the trigger: the algo order fires as a MARKET order.
    const price = await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', {
      indexPrice: '52000',
    });
    expect(price.status).toBe(200);
    const fired = await s.next((m) => m.e === 'ALGO_UPDATE' && m.o.X === 'TRIGGERED');
    expect(fired.o).toMatchObject({ aid: algoId, caid: 'ws-stop-1', act: 'MARKET', tt: expect.any(Number) });
    expect(fired.o.ai).not.toBe('');
    // Its order is on the stream too, under the id the algo update names.
    const order = await s.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.i === fired.o.ai);
    expect(order.o).toMatchObject({ s: BTC, S: 'BUY', o: 'MARKET', ot: 'STOP_MARKET' });
    // No liquidity: the order ends without a fill and the algo order with it.
    const done = await s.next((m) => m.e === 'ALGO_UPDATE' && m.o.X !== 'TRIGGERED');
    expect(done.o).toMatchObject({ aid: algoId, X: 'FINISHED', ai: fired.o.ai, act: 'MARKET', aq: '0.000' });
    await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice: '50000' });
  });

  it('ALGO_UPDATE CANCELED when the user cancels', async () => {
    const s = await userStream(a);
    const placed = await fapi(a, '/fapi/v1/algoOrder', 'POST', {
      algoType: 'CONDITIONAL',
      side: 'SELL',
      type: 'TAKE_PROFIT',
      triggerPrice: '60000',
      price: '60000',
      quantity: '0.02',
      clientAlgoId: 'ws-tp-1',
    });
    expect(placed.status).toBe(200);
    expect((await s.next((m) => m.e === 'ALGO_UPDATE')).o).toMatchObject({
      caid: 'ws-tp-1',
      o: 'TAKE_PROFIT',
      X: 'NEW',
      p: '60000.0',
    });
    const cancel = await signed(ex.url, '/fapi/v1/algoOrder', a.key, {
      method: 'DELETE',
      params: { clientAlgoId: 'ws-tp-1' },
    });
    expect(cancel.status).toBe(200);
    expect((await s.next((m) => m.e === 'ALGO_UPDATE')).o).toMatchObject({
      caid: 'ws-tp-1',
      aid: placed.body.algoId,
      X: 'CANCELED',
    });
  });

  it('MARGIN_CALL from a marginCall account event, to that user only', async () => {
    const sa = await userStream(a);
    const sb = await userStream(b);
    await publishAccountEvent({
      type: 'marginCall',
      user: a.address,
      crossWalletBalance: '3.16812045',
      positions: [
        {
          symbol: BTC,
          positionSide: 'LONG',
          positionAmt: '1.327',
          marginType: 'CROSSED',
          isolatedWallet: '0',
          markPrice: '187.17127',
          unrealizedPnl: '-1.166074',
          maintMargin: '1.614445',
        },
      ],
    });
    expect(await sa.next((m) => m.e === 'MARGIN_CALL')).toEqual({
      e: 'MARGIN_CALL',
      E: expect.any(Number),
      cw: '3.16812045',
      p: [
        {
          s: BTC,
          ps: 'LONG',
          pa: '1.327',
          mt: 'CROSSED',
          iw: '0.00000000',
          mp: '187.17127',
          up: '-1.16607400',
          mm: '1.61444500',
        },
      ],
    });
    // A deposit of b's after it: b's stream sees that, never a's margin call.
    await publishAccountEvent({
      type: 'balance',
      user: b.address,
      asset: 'USDT',
      walletBalance: '10000',
      frozen: '0',
    });
    await sb.next((m) => m.e === 'ACCOUNT_UPDATE');
    expect(sb.received.filter((m) => (m as { e: string }).e === 'MARGIN_CALL')).toEqual([]);
  });

  it('liquidations on <symbol>@forceOrder (any alias) and !forceOrder@arr; ADL closes are not liquidations', async () => {
    const raw = conformance.watch(await clients.open('/ws/BTC-USDT@forceOrder'));
    const all = conformance.watch(await clients.open('/market/stream?streams=!forceOrder@arr'));
    const forceOrder = (autoCloseType: 'LIQUIDATION' | 'ADL', orderId: string) =>
      publishAccountEvent({
        type: 'forceOrder',
        user: a.address,
        forceOrder: {
          orderId,
          symbol: BTC,
          autoCloseType,
          side: 'SELL',
          price: '45000.1',
          avgPrice: '45010.3',
          origQty: '0.5',
          executedQty: '0.5',
          fee: '3.375',
          time: 1_700_000_000_000,
          updateTime: 1_700_000_000_005,
        },
      });
    await forceOrder('ADL', 'adl-1');
    await forceOrder('LIQUIDATION', 'liq-1');
    const payload = {
      e: 'forceOrder',
      E: expect.any(Number),
      o: {
        s: BTC,
        S: 'SELL',
        o: 'LIMIT',
        f: 'IOC',
        q: '0.500',
        p: '45000.1',
        ap: '45010.3',
        X: 'FILLED',
        l: '0.500',
        z: '0.500',
        T: 1_700_000_000_005,
      },
    };
    expect(await raw.next((m) => m.e === 'forceOrder')).toEqual(payload);
    expect(await all.next((m) => m.stream === '!forceOrder@arr')).toEqual({
      stream: '!forceOrder@arr',
      data: payload,
    });
    // Only the liquidation came: the ADL close before it was not published.
    expect(raw.received).toEqual([]);
    expect(all.received).toEqual([]);
  });

  it('every frame the sockets received is a message of the AsyncAPI document (docs/asyncapi/websocket.json)', () => {
    expect(conformance.nonconforming).toEqual([]);
  });
});
