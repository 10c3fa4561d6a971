import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Bus } from '@perp/bus';
import { type ClockTick, TOPICS } from '@perp/contracts';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

/**
 * Time as an input: every KEEPER_TICK_MS the keeper publishes a `clock.tick` on the clock topic,
 * which the risk router copies to every risk partition. Shards expire GTD algo orders at the ticks'
 * times, never at their own wall clock, so a replay expires the same orders at the same places.
 * A second keeper only adds ticks; expiry at a tick is idempotent.
 */
@Injectable()
export class KeeperClock implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('keeper-clock');
  private timer?: ReturnType<typeof setInterval>;
  private inFlight?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bus: Bus,
  ) {}

  onApplicationBootstrap(): void {
    this.logger.log(`clock ticks every ${this.config.KEEPER_TICK_MS} ms`);
    this.timer = setInterval(() => this.fire(), this.config.KEEPER_TICK_MS);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /** Publishes the tick of `now` (skewed as configured). */
  async tick(now = Date.now()): Promise<ClockTick> {
    const time = now + this.config.KEEPER_CLOCK_SKEW_MS;
    const tick: ClockTick = { id: `keeper/clock/${time}`, v: 1, time, type: 'clock.tick' };
    await this.bus.publish(TOPICS.clock.name, 'clock', tick);
    return tick;
  }

  /** One interval: skipped while the previous tick is still being published. */
  private fire(): void {
    if (this.inFlight) return;
    this.inFlight = this.tick()
      .then(() => undefined)
      .catch((e: unknown) => this.logger.error(`clock tick failed: ${(e as Error).message}`))
      .finally(() => {
        this.inFlight = undefined;
      });
  }
}
