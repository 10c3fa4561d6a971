import { ALICE, bookFill, cmd, deposit, newOrder, riskHarness } from './__fixtures__/risk-context';

const mode = (value: string) => cmd({ type: 'margin.mode', user: ALICE, mode: value });

describe('margin mode handler', () => {
  it('switches the mode and says whether it changed', () => {
    const h = riskHarness();
    const out = h.run(mode('isolated'), { reply: true });
    expect(out.reply).toEqual({ ok: true, result: { marginMode: 'ISOLATED', changed: true } });
    expect([...out.users]).toEqual([ALICE]);
    expect(h.book.account(ALICE).marginMode).toBe('ISOLATED');
    expect(h.run(mode('ISOLATED')).reply).toEqual({
      ok: true,
      result: { marginMode: 'ISOLATED', changed: false },
    });
    expect(h.run(mode('CROSSED')).reply).toEqual({
      ok: true,
      result: { marginMode: 'CROSS', changed: true },
    });
  });

  it('refuses an unknown mode with INVALID_MARGIN_MODE', () => {
    const h = riskHarness();
    const out = h.run(mode('PORTFOLIO'), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_MARGIN_MODE', msg: 'margin mode must be CROSS, ISOLATED or UNIFIED' },
    });
    expect(out.users.size).toBe(0);
  });

  it('refuses a switch with open orders (HAS_OPEN_ORDERS) or positions (HAS_OPEN_POSITIONS)', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    h.run(newOrder(1));
    expect(h.run(mode('ISOLATED')).reply).toEqual({
      ok: false,
      error: { reason: 'HAS_OPEN_ORDERS', msg: 'cancel open orders first' },
    });
    h.book.releaseOrder(ALICE, newOrder(1).orderId);
    bookFill(h, ALICE, 'BUY', '0.01');
    expect(h.run(mode('ISOLATED')).reply).toEqual({
      ok: false,
      error: { reason: 'HAS_OPEN_POSITIONS', msg: 'close open positions first' },
    });
    expect(h.book.account(ALICE).marginMode).toBe('CROSS');
  });
});
