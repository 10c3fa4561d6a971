import { refusal, type RiskHandler } from './risk-context';

/** Admin: the user's VIP tier, which sets the fees of their next fills. */
export const setVipTier: RiskHandler<'vip.set'> = (ctx, cmd) => {
  if (!ctx.p.book.setVipTier(cmd.user, cmd.tier)) {
    ctx.out.reply = refusal('INVALID_VIP_TIER', `no VIP tier ${cmd.tier} on this chain`);
    return;
  }
  ctx.out.reply = { ok: true, result: { address: cmd.user, tier: cmd.tier } };
  ctx.out.users.add(cmd.user);
};
