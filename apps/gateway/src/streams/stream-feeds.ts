import {
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { Bus, type BusMessage, Joining, type Subscription } from '@perp/bus';

type FeedHandler = (ms: readonly BusMessage[]) => void | Promise<void>;

/**
 * The topics this replica's stream feeds read, every partition, without a consumer group (no
 * wait for one to form): every replica sees every event, from the end of the log as of its start.
 * One reader for all of them, because each is a consumer with its own fetches per broker. The
 * feeds name their topics in their constructors (before any onModuleInit); a batch holds one
 * partition of one topic and goes to that topic's handler.
 */
@Injectable()
export class StreamFeeds implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly handlers = new Map<string, FeedHandler>();
  private readonly joining = new Joining();
  private subscription?: Subscription;

  constructor(private readonly bus: Bus) {}

  on(topic: string, handler: FeedHandler): void {
    if (this.handlers.has(topic)) throw new Error(`stream feeds: ${topic} is read by another feed`);
    this.handlers.set(topic, handler);
  }

  onModuleInit(): void {
    this.joining.start([
      this.bus.subscribe({
        groupId: 'gateway.streams',
        topics: [...this.handlers.keys()],
        assign: 'all',
        start: 'latest',
        batchHandler: (ms) => this.handlers.get(ms[0]!.topic)?.(ms),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }
}
