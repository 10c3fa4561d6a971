import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Bus, BusMessage, Subscription } from '@perp/bus';
import { afterBatch } from '@perp/bus';
import { type EngineEvent, MessageValidationError, parseMessage, TOPICS } from '@perp/contracts';

/**
 * A consumer group of the engine-events log projecting into the hot store: malformed messages
 * are skipped (and logged) rather than blocking their partition; each turn is committed after
 * `project` ran for its messages. Projections must be idempotent: a message may be delivered again after a crash.
 */
export abstract class EngineEventsProjector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  private subscription?: Subscription;

  protected constructor(
    protected readonly bus: Bus,
    private readonly groupId: string,
  ) {
    this.logger = new Logger(groupId);
  }

  protected abstract project(event: EngineEvent): Promise<unknown>;

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      groupId: this.groupId,
      topics: [TOPICS.engineEvents.name],
      background: true,
      batchHandler: (ms) => this.handleTurn(ms),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  handle(m: BusMessage): Promise<void> {
    return this.handleTurn([m]);
  }

  /** A batched turn: every event waiting on a partition projected in order, then one commit. */
  async handleTurn(messages: readonly BusMessage[]): Promise<void> {
    for (const m of messages) {
      let event: EngineEvent | undefined;
      try {
        event = parseMessage('engineEvents', m.value);
      } catch (e) {
        if (!(e instanceof MessageValidationError)) throw e;
        this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
      }
      if (event) await this.project(event);
    }
    await this.subscription?.commit(afterBatch(messages));
  }
}
