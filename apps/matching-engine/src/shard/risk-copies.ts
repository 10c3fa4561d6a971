import { type EngineEvent, parseOutputId, type RiskCommand } from '@perp/contracts';

/** A copy of an engine event for one user; `copy` numbers the copies of one event. */
export interface EngineEventCopy {
  user: string;
  copy: number;
  /** Trades: the side of the trade this copy settles. */
  liquidity?: 'MAKER' | 'TAKER';
}

/**
 * The users whose risk shard settles an engine event, one copy each (a trade: its maker, then its
 * taker). Not `order.accepted`: risk opened the order's record when it forwarded the command, and a
 * copy would change nothing (a journal line and a risk turn per order for nothing).
 */
export function engineEventRecipients(event: EngineEvent): EngineEventCopy[] {
  switch (event.type) {
    case 'order.rejected':
    case 'order.canceled':
    case 'order.expired':
    case 'order.amended':
    case 'command.result':
    case 'liquidation.done':
      return event.user ? [{ user: event.user, copy: 0 }] : [];
    case 'trade':
      return [
        { user: event.maker.user, copy: 0, liquidity: 'MAKER' },
        { user: event.taker.user, copy: 1, liquidity: 'TAKER' },
      ];
    default:
      return [];
  }
}

/**
 * The risk commands that settle `event`, each with the user it is keyed by, published by the
 * engine in the same turn as the event (one hop less than a copier reading the events log). Their
 * `source` is the place of the engine command behind the event, unique per copy, so a replayed
 * input's copies are dropped by the risk shard's high-water mark like the first run's would be.
 */
export function riskCopies(event: EngineEvent): [user: string, command: RiskCommand][] {
  const recipients = engineEventRecipients(event);
  if (recipients.length === 0) return [];
  const origin = parseOutputId(event.id);
  if (!origin) throw new Error(`engine event without an input-derived id: ${event.id}`);
  return recipients.map(({ user, copy, liquidity }) => {
    const command: Extract<RiskCommand, { type: 'engine.event' }> = {
      id: `${event.id}/${copy}`,
      v: 1,
      time: event.time,
      type: 'engine.event',
      source: { partition: origin.partition, offset: origin.offset, index: origin.index * 2 + copy },
      event,
    };
    if (liquidity) command.liquidity = liquidity;
    return [user, command];
  });
}
