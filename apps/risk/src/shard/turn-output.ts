import { type BusMessage, HEADER_CORRELATION_ID, HEADER_REPLY_KEY, HEADER_REPLY_TO } from '@perp/bus';
import type {
  AccountEvent,
  EngineCommand,
  MessageBody,
  OrderRecord,
  Reply,
  RiskCommand,
} from '@perp/contracts';

/** Where the gateway waits for the answer of an input. */
export type ReplyTo = { topic: string; key: string; correlationId: string };
export type ReplyBody = Pick<Reply, 'ok' | 'result' | 'error'>;

/** One input of a turn, parsed. */
export interface RiskInput {
  message: BusMessage;
  command: RiskCommand;
}

/**
 * What one input produces, published in this order after the turn: engine commands, account
 * events, the reply. `users` (and `algoUsers`, for their algo orders) get their account projection rewritten (once per turn), `closed`
 * orders a hot record for the reads right after they close.
 */
export class Output {
  readonly engineCommands: EngineCommand[] = [];
  readonly accountEvents: MessageBody<AccountEvent>[] = [];
  readonly users = new Set<string>();
  readonly closed: OrderRecord[] = [];
  /** Users whose algo-order projection is rewritten. */
  readonly algoUsers = new Set<string>();
  reply?: ReplyBody;

  constructor(
    public replyTo?: ReplyTo,
    /**
     * False for a replayed input, whose outputs are on the log already and are not published
     * again: handlers may leave out the account events and engine commands they would build (a
     * fill's texts, a new order's). What the state and the projections need (`users`, `closed`)
     * is kept.
     */
    readonly recording = true,
  ) {}
}

export function replyToOf(m: BusMessage): ReplyTo | undefined {
  const correlationId = m.headers[HEADER_CORRELATION_ID];
  const topic = m.headers[HEADER_REPLY_TO];
  if (!correlationId || !topic) return undefined;
  return { topic, key: m.headers[HEADER_REPLY_KEY] ?? correlationId, correlationId };
}
