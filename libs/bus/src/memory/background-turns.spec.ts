import { BackgroundTurns, type BackgroundTurn } from './background-turns';

const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function recorder() {
  const ran: string[] = [];
  const turn = (name: string): BackgroundTurn => ({ runTurn: () => void ran.push(name) });
  return { ran, turn };
}

describe('BackgroundTurns', () => {
  it('runs a waiting turn on the next event-loop iteration when nothing is in flight', async () => {
    const turns = new BackgroundTurns(1_000);
    const { ran, turn } = recorder();
    turns.ready(turn('a'));
    expect(ran).toEqual([]); // never inside the caller
    await nextImmediate();
    expect(ran).toEqual(['a']);
    expect(turns.size).toBe(0);
  });

  it('holds turns while a foreground turn is in flight and runs them after it ends', async () => {
    const turns = new BackgroundTurns(1_000);
    const { ran, turn } = recorder();
    turns.enter();
    turns.ready(turn('a'));
    await nextImmediate();
    await nextImmediate();
    expect(ran).toEqual([]);
    turns.enter(); // a second foreground turn overlapping the first
    turns.leave();
    await nextImmediate();
    expect(ran).toEqual([]);
    turns.leave();
    await nextImmediate();
    expect(ran).toEqual(['a']);
  });

  it('holds turns while something published is not yet written, until poked', async () => {
    let pending = true;
    const turns = new BackgroundTurns(1_000, () => pending);
    const { ran, turn } = recorder();
    turns.ready(turn('a'));
    await nextImmediate();
    expect(ran).toEqual([]);
    pending = false;
    turns.poke();
    await nextImmediate();
    expect(ran).toEqual(['a']);
  });

  it('starts one turn per event-loop iteration, so foreground work arriving between them goes first', async () => {
    const turns = new BackgroundTurns(1_000);
    const { ran, turn } = recorder();
    turns.ready(turn('a'));
    turns.ready(turn('b'));
    turns.ready(turn('c'));
    await nextImmediate();
    expect(ran).toEqual(['a']);
    turns.enter(); // an order arrived
    await nextImmediate();
    await nextImmediate();
    expect(ran).toEqual(['a']);
    turns.leave();
    await nextImmediate();
    expect(ran).toEqual(['a', 'b']);
    await nextImmediate();
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('runs turns that waited the longest delay whatever the foreground does', async () => {
    const turns = new BackgroundTurns(20);
    const ranAt = new Map<string, number>();
    const turn = (name: string): BackgroundTurn => ({
      runTurn: () => void ranAt.set(name, performance.now()),
    });
    turns.enter(); // busy for good
    const readyAt = performance.now();
    turns.ready(turn('a'));
    turns.ready(turn('b'));
    // The delay's timer starts them in the next check phase: on a loaded machine the sleep's timer
    // can fire in the same timers phase as the delay's, before that.
    await sleep(40);
    await nextImmediate();
    expect([...ranAt.keys()]).toEqual(['a', 'b']);
    // Held while the foreground is busy: timed from when they were ready, not checked after a sleep
    // that a loaded machine may stretch past the delay (libuv reads its clock once per iteration:
    // a little slack).
    for (const name of ['a', 'b']) expect(ranAt.get(name)! - readyAt).toBeGreaterThanOrEqual(15);
    const cReadyAt = performance.now();
    turns.ready(turn('c')); // a new wait starts a new delay
    await sleep(40);
    await nextImmediate();
    expect([...ranAt.keys()]).toEqual(['a', 'b', 'c']);
    expect(ranAt.get('c')! - cReadyAt).toBeGreaterThanOrEqual(15);
  });

  it('starts overdue turns together, not one per event-loop iteration', async () => {
    const turns = new BackgroundTurns(10);
    const ran: string[] = [];
    let seenAfterFirst: string[] = [];
    turns.enter();
    turns.ready({
      runTurn: () => {
        ran.push('a');
        queueMicrotask(() => (seenAfterFirst = [...ran])); // after the dispatch that ran 'a'
      },
    });
    turns.ready({ runTurn: () => void ran.push('b') });
    await sleep(40);
    await nextImmediate(); // as above: the dispatch may still be queued behind the sleep's timer
    expect(seenAfterFirst).toEqual(['a', 'b']);
  });

  it('forgets a cancelled turn', async () => {
    const turns = new BackgroundTurns(10);
    const { ran, turn } = recorder();
    const a = turn('a');
    turns.ready(a);
    turns.cancel(a);
    await sleep(30);
    expect(ran).toEqual([]);
    expect(turns.size).toBe(0);
  });
});
