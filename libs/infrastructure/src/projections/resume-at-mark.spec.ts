import { Logger } from '@nestjs/common';
import { MemoryBus } from '@perp/bus';
import type { ProcessedOffsetRepository } from '@perp/persistence';
import { subscribeAtMark } from './resume-at-mark';

const TOPIC = 'perp.test.v1';

describe('subscribeAtMark', () => {
  it('resumes after the mark, restores each assigned partition first, and logs a restore that fails', async () => {
    const bus = new MemoryBus({ topics: { [TOPIC]: 2 } });
    await bus.connect();
    for (let i = 0; i < 4; i++) await bus.publish(TOPIC, 'k', { i });
    const partition = (await bus.publish(TOPIC, 'k', { i: 4 })).partition;
    const marks = { get: async (_c: string, _t: string, p: number) => (p === partition ? '2' : undefined) };
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const order: string[] = [];
    const seen: unknown[] = [];
    const sub = await subscribeAtMark(bus, {
      name: 'test-projection',
      topics: [TOPIC],
      marks: marks as unknown as ProcessedOffsetRepository,
      forget: (p) => order.push(`forget ${p}`),
      restore: async (p) => {
        order.push(`restore ${p}`);
        if (p !== partition) throw new Error('database down');
      },
      batchHandler: async (ms) => {
        if (!order.includes('first message')) order.push('first message');
        seen.push(...ms.map((m) => m.value));
      },
    });
    const deadline = Date.now() + 5_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    // After the mark (offset 2): offsets 3 and 4 only.
    expect(seen).toEqual([{ i: 3 }, { i: 4 }]);
    expect(order.indexOf(`restore ${partition}`)).toBeLessThan(order.indexOf('first message'));
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('hot-store forms not restored: Error: database down'),
    );
    warn.mockRestore();
    await sub.close();
    await bus.close();
  });
});
