/** A cursor of a background consumer with messages waiting: the scheduler starts its next turn. */
export interface BackgroundTurn {
  runTurn(): void;
}

/**
 * Turn order inside one process's memory bus: the consumers on the order path (foreground) run as
 * soon as a message reaches them; background consumers (projections) run a turn only when no
 * foreground turn is in flight and nothing published waits for the journal, or once they have
 * waited `maxDelayMs`. On one event loop, a projection's turn that runs between two hops of an
 * order delays its reply; deferred, the projections run after the reply, in larger batches.
 *
 * Background turns start one per event-loop iteration (setImmediate), so an HTTP request that
 * arrives meanwhile is read before the next one starts and takes precedence; overdue ones start
 * together.
 */
export class BackgroundTurns {
  private readonly waiting = new Set<BackgroundTurn>();
  /** Waited `maxDelayMs` already: started whatever the foreground does. */
  private readonly overdue = new Set<BackgroundTurn>();
  private foreground = 0;
  private dispatching = false;
  private timer?: NodeJS.Timeout;

  /** `pending`: something published is not yet delivered (the journal has not written it). */
  constructor(
    private readonly maxDelayMs: number,
    private readonly pending: () => boolean = () => false,
  ) {}

  /** A foreground turn began. */
  enter(): void {
    this.foreground++;
  }

  /** A foreground turn ended (its outputs written). */
  leave(): void {
    if (--this.foreground === 0) this.poke();
  }

  /** The foreground may have become idle (a turn ended, the journal wrote a batch): look again. */
  poke(): void {
    if (this.dispatching || this.waiting.size === 0) return;
    this.dispatching = true;
    setImmediate(this.dispatch);
  }

  /** `turn` has messages waiting; it runs when the foreground is idle or after `maxDelayMs`. */
  ready(turn: BackgroundTurn): void {
    this.waiting.add(turn);
    this.timer ??= setTimeout(this.expire, this.maxDelayMs);
    this.poke();
  }

  /** `turn` no longer wants to run (its cursor stopped). */
  cancel(turn: BackgroundTurn): void {
    this.waiting.delete(turn);
    this.overdue.delete(turn);
    if (this.waiting.size === 0) this.disarm();
  }

  /** Background turns waiting now (tests). */
  get size(): number {
    return this.waiting.size;
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    for (const t of this.waiting) this.overdue.add(t);
    this.poke();
  };

  private readonly dispatch = (): void => {
    this.dispatching = false;
    if (this.overdue.size > 0) {
      // Waited long enough: all of them now. Under load an event-loop iteration is long, and one
      // overdue turn per iteration would add an iteration per consumer to their lag.
      const due = [...this.overdue];
      this.overdue.clear();
      for (const t of due) this.waiting.delete(t);
      if (this.waiting.size === 0) this.disarm();
      for (const t of due) t.runTurn();
      this.poke();
      return;
    }
    let next: BackgroundTurn | undefined;
    if (this.foreground === 0 && !this.pending()) {
      for (const t of this.waiting) {
        next = t;
        break;
      }
    }
    // Busy: the foreground's last leave, the journal's next write or the timer looks again.
    if (next === undefined) return;
    this.waiting.delete(next);
    if (this.waiting.size === 0) this.disarm();
    next.runTurn();
    this.poke();
  };

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
