import type { RiskCommand } from '@perp/contracts';
import { cancelAlgoOrder, cancelAllAlgoOrders, newAlgoOrder } from './algo-order';
import { amendOrder } from './amend-order';
import { cancelAllOrders, cancelOrder } from './cancel-order';
import { clockTick } from './clock-tick';
import { moveCollateral } from './collateral';
import { deposit } from './deposit';
import { engineEvent } from './engine-event';
import { settleFunding } from './funding';
import { setLeverage } from './leverage';
import { setMarginMode } from './margin-mode';
import { markPrice } from './mark-price';
import { marketState } from './market-state';
import { newOrder } from './new-order';
import type { RiskContext, RiskHandler } from './risk-context';
import { setVipTier } from './vip-tier';

export { type RiskContext } from './risk-context';

/** Every risk command's handler: a command type without one fails type checking. */
export const RISK_HANDLERS: { readonly [K in RiskCommand['type']]: RiskHandler<K> } = {
  deposit,
  'vip.set': setVipTier,
  'leverage.set': setLeverage,
  'margin.mode': setMarginMode,
  collateral: moveCollateral,
  'price.mark': markPrice,
  'order.new': newOrder,
  'order.cancel': cancelOrder,
  'order.cancelAll': cancelAllOrders,
  'order.amend': amendOrder,
  'engine.event': engineEvent,
  'algo.new': newAlgoOrder,
  'algo.cancel': cancelAlgoOrder,
  'algo.cancelAll': cancelAllAlgoOrders,
  'clock.tick': clockTick,
  'market.state': marketState,
  'funding.settle': settleFunding,
};

/** Applies one command through its handler. */
export function applyRiskCommand(ctx: RiskContext, cmd: RiskCommand): void {
  (RISK_HANDLERS[cmd.type] as RiskHandler<RiskCommand['type']>)(ctx, cmd);
}
