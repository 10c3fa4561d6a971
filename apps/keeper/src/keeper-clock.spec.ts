import { MemoryBus } from '@perp/bus';
import { parseMessage, TOPICS, topicPartitions } from '@perp/contracts';
import { loadAppConfig } from '@perp/runtime';
import { KeeperClock } from './keeper-clock';

describe('KeeperClock', () => {
  it('publishes clock ticks on the clock topic at the (skewed) time, valid for its schema', async () => {
    const bus = new MemoryBus({ topics: topicPartitions(), cloneValues: true });
    await bus.connect();
    const config = loadAppConfig({ KEEPER_CLOCK_SKEW_MS: '5000' });
    const clock = new KeeperClock(config, bus);
    const tick = await clock.tick(1_000);
    expect(tick).toEqual({ id: 'keeper/clock/6000', v: 1, time: 6000, type: 'clock.tick' });
    const [end] = await bus.endOffsets(TOPICS.clock.name);
    expect(end?.offset).toBe('1');
    expect(parseMessage('clock', tick)).toEqual(tick);
    await bus.close();
  });
});
