import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Bus, BusTimeoutError } from '@perp/bus';
import { type MessageBody, type OutcomeError, type Reply, type RiskCommand, TOPICS } from '@perp/contracts';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

/**
 * The commands a client sends for one user (marks, clock ticks and funding rounds come from the
 * risk router, engine-event copies from the engine).
 */
export type RiskCommandBody = MessageBody<
  Exclude<
    RiskCommand,
    { type: 'price.mark' | 'engine.event' | 'clock.tick' | 'funding.settle' | 'market.state' }
  >
>;

/**
 * The answer, a refusal, or none in time (`unavailable`): then `published` says whether the command
 * reached the log, where it may still take effect (the outcome is unknown), or never did.
 */
export type RiskOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: OutcomeError }
  | { ok: false; unavailable: true; published: boolean };

/**
 * Sends a command to the risk shard owning the user (keyed by address) and waits for its answer:
 * for orders that is after the engine applied it and risk settled its fills (read-your-writes).
 */
@Injectable()
export class RiskClient {
  private readonly logger = new Logger('RiskClient');

  constructor(
    private readonly bus: Bus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(body: RiskCommandBody, time = Date.now()): Promise<RiskOutcome> {
    // Envelope first, then the body's fields (a spread with new fields is V8's slow path).
    const cmd = Object.assign({ id: `gateway/${randomUUID()}`, v: 1, time }, body) as RiskCommand;
    let reply: Reply;
    try {
      reply = (
        await this.bus.request<Reply>(TOPICS.riskCommands.name, body.user, cmd, {
          // The user's risk shard and, for orders, the engine after it.
          timeoutMs: this.config.UPSTREAM_TIMEOUT_MS,
        })
      ).value;
    } catch (e) {
      if (e instanceof BusTimeoutError) return { ok: false, unavailable: true, published: e.published };
      // The log refused the command: it never reached risk.
      this.logger.warn(
        `${cmd.type} for ${body.user} not published: ${e instanceof Error ? e.message : String(e)}`,
      );
      return { ok: false, unavailable: true, published: false };
    }
    if (reply.ok) return { ok: true, result: reply.result };
    return { ok: false, error: reply.error ?? { reason: 'INTERNAL_ERROR', msg: 'refused without a reason' } };
  }
}
