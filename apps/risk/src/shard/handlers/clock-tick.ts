import { moveAlgo } from './algo-records';
import type { RiskHandler } from './risk-context';

/** The keeper's clock: GTD algo orders whose goodTillDate has come are EXPIRED (time from the log). */
export const clockTick: RiskHandler<'clock.tick'> = (ctx, cmd) => {
  for (const live of ctx.p.algos.expiringAt(cmd.time)) {
    ctx.p.triggers.remove(live.command.orderId);
    moveAlgo(ctx, live, 'EXPIRE', cmd.time, { reason: 'goodTillDate reached' });
  }
};
