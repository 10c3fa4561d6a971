import { Logger } from '@nestjs/common';
import type { BusMessage } from '@perp/bus';
import { HEADER_INPUT_END } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { UserEventRenderer } from './user-events';

const ALICE = `0x${'a'.repeat(40)}`;
const BOB = `0x${'b'.repeat(40)}`;
let offset = 0;

/** An account event of input `input` at the next offset; `end` as risk marks it (undefined: an old log). */
function event(input: string, user: string, body: Record<string, unknown>, end?: '0' | '1'): BusMessage {
  return {
    topic: 'perp.account.events.v1',
    partition: 3,
    offset: String(offset++),
    key: user,
    value: { id: `${input}/0`, v: 1, time: 1000, user, ...body },
    headers: end === undefined ? {} : { [HEADER_INPUT_END]: end },
    timestamp: 0,
  };
}
const balance = (wb: string) => ({ type: 'balance', asset: 'USDT', walletBalance: wb, frozen: '0' });
const funding = {
  type: 'income',
  symbol: 'BTCUSDT',
  incomeType: 'FUNDING_FEE',
  income: '-1',
  asset: 'USDT',
  tradeId: '',
  info: 'funding',
};
const position = { type: 'position', symbol: 'BTCUSDT', size: '0.5', entryPrice: '50000', leverage: 20 };

describe('UserEventRenderer', () => {
  beforeEach(() => (offset = 0));
  const renderer = () => new UserEventRenderer(new MarketRegistry([]), new Logger('test'), () => true);

  it("renders an input's events as one group across fetches and between another user's events", () => {
    const r = renderer();
    const first = r.render(
      [
        event('in/1', ALICE, funding, '0'),
        event('in/2', BOB, balance('5'), '1'),
        event('in/1', ALICE, balance('99'), '0'),
      ],
      0,
    );
    // Bob's deposit is whole; Alice's funding waits for its last event.
    expect(first.map((e) => [e.user, (e.data as { a: { m: string } }).a.m])).toEqual([[BOB, 'DEPOSIT']]);
    const second = r.render([event('in/1', ALICE, position, '1')], 0);
    expect(second).toEqual([
      {
        user: ALICE,
        place: { partition: 3, groupStart: 0n, offset: 3n, sub: 1 },
        data: expect.objectContaining({
          e: 'ACCOUNT_UPDATE',
          a: expect.objectContaining({
            m: 'FUNDING_FEE',
            B: [expect.objectContaining({ wb: '99.00000000' })],
            P: [expect.objectContaining({ s: 'BTCUSDT', pa: '0.5' })],
          }),
        }),
      },
    ]);
  });

  it('events without the header (an older log) end their group with the fetch', () => {
    const r = renderer();
    const out = r.render([event('in/1', ALICE, funding), event('in/1', ALICE, balance('7'))], 0);
    expect(out.map((e) => e.place)).toEqual([{ partition: 3, groupStart: 0n, offset: 1n, sub: 1 }]);
  });

  it('places ACCOUNT_CONFIG_UPDATE and MARGIN_CALL at their account events (a replay re-renders them alike); the group hook sees every user', () => {
    const groups: [string, string[]][] = [];
    const r = new UserEventRenderer(
      new MarketRegistry([]),
      new Logger('test'),
      (user) => user === ALICE,
      (change) => groups.push([change.user, change.events.map((e) => e.type)]),
    );
    const marginCall = {
      type: 'marginCall',
      crossWalletBalance: '10',
      positions: [
        {
          symbol: 'BTCUSDT',
          positionSide: 'LONG',
          positionAmt: '0.5',
          marginType: 'CROSSED',
          isolatedWallet: '0',
          markPrice: '40000',
          unrealizedPnl: '-5000',
          maintMargin: '100',
        },
      ],
    };
    const log = [
      event('in/1', ALICE, { type: 'leverage', symbol: 'BTCUSDT', leverage: 7 }, '1'),
      event('in/2', BOB, balance('5'), '1'),
      event('in/3', ALICE, marginCall, '1'),
    ];
    const out = r.render(log, 0);
    expect(out.map((e) => [e.place, (e.data as { e: string }).e])).toEqual([
      [{ partition: 3, groupStart: 0n, offset: 0n, sub: 0 }, 'ACCOUNT_CONFIG_UPDATE'],
      [{ partition: 3, groupStart: 2n, offset: 2n, sub: 0 }, 'MARGIN_CALL'],
    ]);
    expect(out[0]!.data).toMatchObject({ ac: { s: 'BTCUSDT', l: 7 } });
    expect(out[1]!.data).toMatchObject({ cw: '10.00000000', p: [{ s: 'BTCUSDT', ps: 'LONG', pa: '0.5' }] });
    expect(groups).toEqual([
      [ALICE, ['leverage']],
      [BOB, ['balance']],
      [ALICE, ['marginCall']],
    ]);
    // A replay renders the same events at the same places.
    expect(
      renderer()
        .render(log.slice(2), 0)
        .map((e) => e.place),
    ).toEqual([out[1]!.place]);
  });
});
