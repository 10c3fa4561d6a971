import { ALICE, bookFill, cmd, deposit, riskHarness } from './__fixtures__/risk-context';

const collateral = (action: 'add' | 'remove', amount: string) =>
  cmd({ type: 'collateral', user: ALICE, symbol: 'BTCUSDT', action, amount });

/** ALICE isolated, wallet 1000, long 0.01 BTCUSDT at 60000 (position margin 30, maker fee 0.12). */
function isolatedLong() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(cmd({ type: 'margin.mode', user: ALICE, mode: 'ISOLATED' }));
  bookFill(h, ALICE, 'BUY', '0.01');
  return h;
}

describe('collateral handler', () => {
  it('adds to and removes from an isolated position, answering with collateral and isolated margin', () => {
    const h = isolatedLong();
    const added = h.run(collateral('add', '50'), { reply: true });
    expect(added.reply).toEqual({
      ok: true,
      result: { symbol: 'BTCUSDT', collateral: '50', isolatedMargin: '80' },
    });
    expect([...added.users]).toEqual([ALICE]);
    // wallet 999.88 - isolated 80
    expect(h.book.balances(ALICE).availableBalance.toFixed()).toBe('919.88');
    const removed = h.run(collateral('remove', '20'));
    expect(removed.reply).toEqual({
      ok: true,
      result: { symbol: 'BTCUSDT', collateral: '30', isolatedMargin: '60' },
    });
    expect(h.book.account(ALICE).walletBalance.toFixed()).toBe('999.88');
  });

  it('refuses more than the collateral above the initial margin with INVALID_AMOUNT', () => {
    const h = isolatedLong();
    h.run(collateral('add', '50'));
    const out = h.run(collateral('remove', '50.01'), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_AMOUNT', msg: 'at most 50 can be removed above the initial margin' },
    });
    expect(out.users.size).toBe(0);
    expect(h.book.account(ALICE).position('BTCUSDT')?.collateral.toFixed()).toBe('50');
  });

  it('refuses more than the available balance with INSUFFICIENT_BALANCE', () => {
    const h = isolatedLong();
    // available: 999.88 - 30
    expect(h.run(collateral('add', '969.89')).reply).toMatchObject({
      ok: false,
      error: { reason: 'INSUFFICIENT_BALANCE' },
    });
    expect(h.run(collateral('add', '969.88')).reply).toMatchObject({
      ok: true,
      result: { collateral: '969.88' },
    });
  });

  it.each(['0', '-1', 'x'])('refuses amount %p with INVALID_AMOUNT', (amount) => {
    const out = isolatedLong().run(collateral('add', amount));
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_AMOUNT', msg: 'amount must be positive' },
    });
  });

  it('refuses in cross margin (INVALID_MARGIN_MODE) and without a position (POSITION_NOT_FOUND)', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    expect(h.run(collateral('add', '5')).reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_MARGIN_MODE', msg: 'collateral applies to isolated margin only' },
    });
    h.run(cmd({ type: 'margin.mode', user: ALICE, mode: 'ISOLATED' }));
    expect(h.run(collateral('add', '5')).reply).toEqual({
      ok: false,
      error: { reason: 'POSITION_NOT_FOUND', msg: 'no open position on BTCUSDT' },
    });
  });
});
