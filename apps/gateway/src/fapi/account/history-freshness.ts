import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { FapiError, HISTORY_CONSUMER, TOPICS } from '@perp/contracts';
import { ProcessedOffsetRepository } from '@perp/persistence';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

const POLL_MS = 2;

/**
 * Read-your-writes for history in Postgres, which the projector writes behind the log: before a
 * query, wait until the projector's mark on the caller's account-event partition reaches the end
 * that partition had when the request arrived. Everything acknowledged to the caller before this
 * request was published before that end, so its rows are there.
 */
@Injectable()
export class HistoryFreshness {
  constructor(
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async caughtUp(address: string): Promise<void> {
    const topic = TOPICS.accountEvents.name;
    const partition = this.bus.partitionFor(topic, address);
    const end = (await this.bus.endOffsets(topic)).find((e) => e.partition === partition);
    if (!end || end.offset === '0') return;
    const last = BigInt(end.offset) - 1n;
    const deadline = Date.now() + this.config.UPSTREAM_TIMEOUT_MS;
    for (;;) {
      const mark = await this.marks.get(HISTORY_CONSUMER, topic, partition);
      if (mark !== undefined && BigInt(mark) >= last) return;
      if (Date.now() >= deadline)
        throw new FapiError('DISCONNECTED', 'Internal error; the history is behind, try again.');
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
