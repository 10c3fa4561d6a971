import { refusal, type RiskHandler } from './risk-context';

/**
 * The user's leverage on a symbol; refused when open positions or orders would lack margin. A
 * change (not a repeat of the standing value) is published as a `leverage` account event.
 */
export const setLeverage: RiskHandler<'leverage.set'> = (ctx, cmd) => {
  const market = ctx.markets.find(cmd.symbol);
  const before = market ? ctx.p.book.account(cmd.user).leverage(market) : undefined;
  const r = ctx.p.book.setLeverage(cmd.user, cmd.symbol, cmd.leverage);
  if (!r.ok) {
    ctx.out.reply = refusal(r.reason, r.message);
    return;
  }
  ctx.out.reply = {
    ok: true,
    result: { leverage: r.leverage, maxNotionalValue: r.maxNotionalValue.toFixed(), symbol: r.symbol },
  };
  if (r.leverage !== before)
    ctx.out.accountEvents.push({ type: 'leverage', user: cmd.user, symbol: r.symbol, leverage: r.leverage });
  ctx.out.users.add(cmd.user);
};
