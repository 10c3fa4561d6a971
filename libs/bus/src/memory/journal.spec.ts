import { spawn } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { transformFileSync } from '@swc/core';
import { eventually } from '@perp/testing';
import type { BusMessage, PublishResult } from '../bus';
import { silentLogger } from '../logger';
import { MemoryBus, type MemoryBusOptions } from './memory-bus';

const REPO = join(__dirname, '..', '..', '..', '..');
const TOPICS = { orders: 4, events: 2 };

function collect(bus: MemoryBus, groupId: string, topics: string[], into: BusMessage[]) {
  return bus.subscribe({ groupId, topics, handler: (m) => void into.push(m) });
}

describe('MemoryBus journal', () => {
  let dir: string;
  const open = async (extra: Partial<MemoryBusOptions> = {}) => {
    const bus = new MemoryBus({ topics: TOPICS, logger: silentLogger, journal: { dir }, ...extra });
    await bus.connect();
    return bus;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bus-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('restores messages and committed offsets after the adapter is dropped without closing', async () => {
    const first = await open({ journal: { dir, fsync: 'never' } });
    const published: PublishResult[] = [];
    for (let i = 0; i < 30; i++) {
      published.push(
        await first.publish('orders', `user-${i % 3}`, { i }, i % 2 ? { odd: 'yes' } : undefined),
      );
    }
    await first.publish('events', 'BTCUSDT', { kind: 'trade' });
    const seen: BusMessage[] = [];
    const sub = await collect(first, 'risk', ['orders'], seen);
    await eventually(() => seen.length === 30);
    // The group handled everything but commits only up to the 4th message of each partition.
    const commits = [0, 1, 2, 3].map((partition) => {
      const mine = published.filter((p) => p.partition === partition);
      return { topic: 'orders', partition, offset: String(Math.min(4, mine.length)) };
    });
    await sub.commit(commits);
    // Crash: no close(), no flush beyond what publish/commit already acknowledged.

    const second = await open();
    const replay: BusMessage[] = [];
    await collect(second, 'audit', ['orders', 'events'], replay);
    await eventually(() => replay.length === 31);
    for (const [i, p] of published.entries()) {
      const m = replay.find(
        (r) => r.topic === 'orders' && r.partition === p.partition && r.offset === p.offset,
      )!;
      expect(m.value).toEqual({ i });
      // Read back from the file, not built here: consumers validate it again.
      expect(m.inProcess).toBe(false);
      expect(m.headers).toEqual(i % 2 ? { odd: 'yes' } : {});
    }
    const byOffset = (a: BusMessage, b: BusMessage) =>
      a.partition - b.partition || Number(a.offset) - Number(b.offset);
    // Where the value came from differs (built here, read back): the messages are otherwise equal.
    const strip = ({ inProcess: _, ...m }: BusMessage) => m;
    expect(
      replay
        .filter((m) => m.topic === 'orders')
        .sort(byOffset)
        .map(strip),
    ).toEqual([...seen].sort(byOffset).map(strip));
    expect(replay.find((m) => m.topic === 'events')).toMatchObject({
      key: 'BTCUSDT',
      value: { kind: 'trade' },
    });

    // The risk group resumes after its committed offsets.
    const resumed: BusMessage[] = [];
    await collect(second, 'risk', ['orders'], resumed);
    const expected = published.filter((p) => Number(p.offset) >= 4);
    await eventually(() => resumed.length === expected.length);
    expect(resumed.map((m) => `${m.partition}@${m.offset}`).sort()).toEqual(
      expected.map((p) => `${p.partition}@${p.offset}`).sort(),
    );

    // Offsets continue where the journal ended.
    const next = await second.publish('events', 'BTCUSDT', { kind: 'trade' });
    expect(next.offset).toBe('1');
    await second.close();
  });

  it('restores multi-byte text and a multi-megabyte batch, byte for byte', async () => {
    const first = await open({ journal: { dir, fsync: 'never' } });
    // One event-loop turn: a single batch of about 3 MB (one write), then a small one.
    const values = [
      { text: 'Ünïcødé € 𝄞 😀 \u2028 "quoted" \\ back' },
      ...Array.from({ length: 12 }, (_, i) => ({ i, pad: '€'.repeat(80_000 + i) })),
      { text: 'after the large ones 😀' },
    ];
    const results = await Promise.all(values.map((v) => first.publish('events', 'k', v)));
    expect(results.map((r) => r.offset)).toEqual(values.map((_, i) => String(i)));
    await first.publish('events', 'k', { tail: 'ß' });
    const lines = readFileSync(join(dir, 'bus.journal'), 'utf8').split('\n');
    expect(lines[lines.length - 1]).toBe('');
    expect(lines.filter((l) => l.startsWith('["m"')).map((l) => JSON.parse(l)[5])).toEqual([
      ...values,
      { tail: 'ß' },
    ]);

    const second = await open();
    const seen: BusMessage[] = [];
    await collect(second, 'g', ['events'], seen);
    await eventually(() => seen.length === values.length + 1);
    expect(seen.map((m) => m.value)).toEqual([...values, { tail: 'ß' }]);
    await second.close();
  });

  it('cuts a torn tail off and keeps appending after the last whole record', async () => {
    const first = await open();
    await first.publish('orders', 'a', { n: 1 });
    await first.publish('orders', 'a', { n: 2 });
    await first.close();
    const torn = '["m","orders",0,2,"a",{"n":';
    appendFileSync(join(dir, 'bus.journal'), torn);

    const warnings: string[] = [];
    const second = await open({ logger: { ...silentLogger, warn: (m: string) => void warnings.push(m) } });
    expect(warnings.join()).toContain(`dropping ${torn.length} bytes of torn tail`);
    const r = await second.publish('orders', 'a', { n: 3 });
    expect(r.offset).toBe('2');
    await second.close();

    const third = await open();
    const seen: BusMessage[] = [];
    await collect(third, 'g', ['orders'], seen);
    await eventually(() => seen.length === 3);
    expect(seen.map((m) => m.value)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await third.close();
  });

  it('refuses a configuration whose partition count differs from the journal', async () => {
    const first = await open();
    await first.close();
    const bus = new MemoryBus({ topics: { orders: 8 }, logger: silentLogger, journal: { dir } });
    await expect(bus.connect()).rejects.toThrow(
      'topic orders has 4 partitions in the journal but 8 configured',
    );
  });

  it('leaves replies out of the journal but delivers one only after the records published before it are written', async () => {
    const bus = await open({ topics: { ...TOPICS, replies: 2 }, replyTopic: 'replies' });
    const journal = () => readFileSync(join(dir, 'bus.journal'), 'utf8');
    const seen: string[] = [];
    await bus.subscribe({
      groupId: 'requester',
      topics: ['replies'],
      handler: (m) => {
        // The effect the reply reports is already in the file when the reply is seen.
        seen.push(`${(m.value as { answer: string }).answer} ${journal().includes('"effect-1"')}`);
      },
    });
    // The reply is published first in the turn; the effect after it, in the same turn.
    const reply = bus.publish('replies', 'me', { answer: 'done' });
    const effect = bus.publish('events', 'BTCUSDT', { kind: 'effect-1' });
    await Promise.all([reply, effect]);
    await eventually(() => seen.length === 1);
    expect(seen).toEqual(['done true']);
    expect(journal()).not.toContain('"done"');

    // A reply with nothing else in its turn is delivered too, and after a restart the reply topic
    // holds nothing.
    await bus.publish('replies', 'me', { answer: 'alone' });
    await eventually(() => seen.length === 2);
    await bus.close();
    const reopened = await open({ topics: { ...TOPICS, replies: 2 }, replyTopic: 'replies' });
    expect((await reopened.endOffsets('replies')).map((o) => o.offset)).toEqual(['0', '0']);
    expect((await reopened.endOffsets('events')).some((o) => o.offset === '1')).toBe(true);
    await reopened.close();
  });

  it('refuses a directory another live process holds', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bus.lock'), String(process.ppid));
    await expect(open()).rejects.toThrow(`is in use by process ${process.ppid}`);
  });

  it('syncs every batch with fsync: always and reopens cleanly after close', async () => {
    const bus = await open({ journal: { dir, fsync: 'always' } });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bus.publish('orders', `k${i}`, { i })),
    );
    await bus.close();
    const reopened = await open();
    const seen: BusMessage[] = [];
    await collect(reopened, 'g', ['orders'], seen);
    await eventually(() => seen.length === 50);
    expect(seen.map((m) => `${m.partition}@${m.offset}`).sort()).toEqual(
      results.map((r) => `${r.partition}@${r.offset}`).sort(),
    );
    await reopened.close();
  });

  it('keeps every acknowledged message and commit when the process is killed with SIGKILL', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bus-compiled-'));
    try {
      compileBusTo(out);
      const child = spawn(process.execPath, [join(out, 'crash-child.js'), dir], {
        env: { ...process.env, NODE_PATH: join(REPO, 'node_modules') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_c, s) => resolve(s)),
      );
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          stdout += d;
          if ((stdout.match(/^ack /gm)?.length ?? 0) >= 3000) resolve();
        });
        child.once('exit', () => reject(new Error(`child exited early: ${stderr}`)));
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const acks = [...stdout.matchAll(/^ack (\d+) (\d+) (\d+)$/gm)].map((m) => m.slice(1).map(Number));
      const commits = new Map<number, number>();
      for (const [, p, o] of stdout.matchAll(/^commit (\d+) (\d+)$/gm)) {
        commits.set(Number(p), Math.max(commits.get(Number(p)) ?? 0, Number(o)));
      }
      expect(acks.length).toBeGreaterThanOrEqual(3000);
      expect(commits.size).toBe(2);

      const bus = await open({ topics: { crash: 2 } });
      const all: BusMessage[] = [];
      await collect(bus, 'everything', ['crash'], all);
      const resumed: BusMessage[] = [];
      await collect(bus, 'g', ['crash'], resumed);
      await eventually(() => all.length >= acks.length);
      const stored = new Map(all.map((m) => [`${m.partition}@${m.offset}`, (m.value as { i: number }).i]));
      for (const [i, p, o] of acks) expect(stored.get(`${p}@${o}`)).toBe(i);
      // The group resumes at (or, for a commit written but not yet acknowledged, after) its last acknowledged commit.
      await eventually(() => new Set(resumed.map((m) => m.partition)).size === 2);
      for (const [p, o] of commits) {
        const first = resumed.find((m) => m.partition === p)!;
        expect(Number(first.offset)).toBeGreaterThanOrEqual(o);
      }
      await bus.close();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 30_000);
});

/** The bus sources as CommonJS in `out`, plus a child that publishes until it is killed. */
function compileBusTo(out: string): void {
  const swcrc = JSON.parse(readFileSync(join(REPO, '.swcrc'), 'utf8'));
  delete swcrc.$schema;
  delete swcrc.jsc.baseUrl;
  delete swcrc.jsc.paths;
  const src = join(__dirname, '..');
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : [],
    );
  for (const file of walk(src).filter((f) => !/\.(spec|d)\.ts$/.test(f))) {
    const { code } = transformFileSync(file, { ...swcrc, swcrc: false, sourceMaps: false });
    const target = join(out, relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, code);
  }
  writeFileSync(
    join(out, 'crash-child.js'),
    `
const { MemoryBus } = require('./memory/memory-bus.js');
const { silentLogger } = require('./logger.js');
const bus = new MemoryBus({ topics: { crash: 2 }, logger: silentLogger, journal: { dir: process.argv[2], fsync: 'never' } });
(async () => {
  await bus.connect();
  let sub;
  sub = await bus.subscribe({ groupId: 'g', topics: ['crash'], handler: async (m) => {
    if (Number(m.offset) % 50 === 49) {
      const offset = String(Number(m.offset) + 1);
      await sub.commit({ topic: m.topic, partition: m.partition, offset });
      process.stdout.write('commit ' + m.partition + ' ' + offset + '\\n');
    }
  } });
  for (let i = 0; ; ) {
    const burst = [];
    for (let j = 0; j < 100; j++, i++) {
      const n = i;
      burst.push(bus.publish('crash', 'key-' + (n % 7), { i: n }).then((r) => {
        process.stdout.write('ack ' + n + ' ' + r.partition + ' ' + r.offset + '\\n');
      }));
    }
    await Promise.all(burst);
  }
})().catch((e) => { console.error(e); process.exit(3); });
`,
  );
}
