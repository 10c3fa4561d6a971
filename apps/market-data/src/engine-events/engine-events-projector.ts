import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Bus, BusMessage, Subscription } from '@perp/bus';
import { nextOffset } from '@perp/bus';
import { type EngineEvent, MessageValidationError, parseMessage, TOPICS } from '@perp/contracts';

/**
 * A consumer group of the engine-events log projecting into the hot store: malformed messages
 * are skipped (and logged) rather than blocking their partition; each message is committed after
 * `project` ran. Projections must be idempotent: a message may be delivered again after a crash.
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
      handler: (m) => this.handle(m),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  async handle(m: BusMessage): Promise<void> {
    let event: EngineEvent | undefined;
    try {
      event = parseMessage('engineEvents', m.value);
    } catch (e) {
      if (!(e instanceof MessageValidationError)) throw e;
      this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
    }
    if (event) await this.project(event);
    await this.subscription?.commit({ topic: m.topic, partition: m.partition, offset: nextOffset(m.offset) });
  }
}
