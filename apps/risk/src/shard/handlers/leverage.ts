import { refusal, type RiskHandler } from './risk-context';

/** The user's leverage on a symbol; refused when open positions or orders would lack margin. */
export const setLeverage: RiskHandler<'leverage.set'> = (ctx, cmd) => {
  const r = ctx.p.book.setLeverage(cmd.user, cmd.symbol, cmd.leverage);
  if (!r.ok) {
    ctx.out.reply = refusal(r.reason, r.message);
    return;
  }
  ctx.out.reply = {
    ok: true,
    result: { leverage: r.leverage, maxNotionalValue: r.maxNotionalValue.toFixed(), symbol: r.symbol },
  };
  ctx.out.users.add(cmd.user);
};
