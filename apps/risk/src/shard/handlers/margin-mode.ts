import { refusal, type RiskHandler } from './risk-context';

/** The account's margin mode (cross, isolated, unified). */
export const setMarginMode: RiskHandler<'margin.mode'> = (ctx, cmd) => {
  const r = ctx.p.book.setMarginMode(cmd.user, cmd.mode);
  if (!r.ok) {
    ctx.out.reply = refusal(r.reason, r.message);
    return;
  }
  ctx.out.reply = { ok: true, result: { marginMode: r.mode, changed: r.changed } };
  ctx.out.users.add(cmd.user);
};
