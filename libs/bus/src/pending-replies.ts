import { BusTimeoutError, HEADER_CORRELATION_ID, type BusMessage } from './bus';

interface Pending {
  resolve: (m: BusMessage<never>) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  published: boolean;
  /** Takes the request back if it has not left this process yet; true when it did so. */
  withdraw?: () => boolean;
}

/** Requests waiting for their reply, by correlation id. */
export class PendingReplies {
  private readonly pending = new Map<string, Pending>();

  /** Starts the clock now: rejects with BusTimeoutError after `timeoutMs`. */
  wait<T>(correlationId: string, timeoutMs: number, what: string): Promise<BusMessage<T>> {
    return new Promise<BusMessage<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        const p = this.pending.get(correlationId);
        // Still queued in this process: taken back, it never reaches the log, so "not sent" is true.
        const published = (p?.published ?? false) && !(p?.withdraw?.() ?? false);
        this.pending.delete(correlationId);
        const state = published ? 'published, outcome unknown' : 'never published';
        reject(new BusTimeoutError(`no reply to ${what} within ${timeoutMs} ms (${state})`, published));
      }, timeoutMs);
      this.pending.set(correlationId, {
        resolve: resolve as Pending['resolve'],
        reject,
        timer,
        published: false,
      });
    });
  }

  /** Settles the matching request; false for a reply nobody waits for (late, or another requester's). */
  deliver(message: BusMessage): boolean {
    const id = message.headers[HEADER_CORRELATION_ID];
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id!);
    clearTimeout(p.timer);
    p.resolve(message as BusMessage<never>);
    return true;
  }

  /**
   * The request is being handed to the log: from here a timeout cannot say it did not happen,
   * unless `withdraw` takes it back before it left the process (a produce queue behind a slow
   * broker). False when it already timed out (the caller must not send it then).
   */
  publishing(correlationId: string, withdraw?: () => boolean): boolean {
    const p = this.pending.get(correlationId);
    if (!p) return false;
    p.published = true;
    p.withdraw = withdraw;
    return true;
  }

  has(correlationId: string): boolean {
    return this.pending.has(correlationId);
  }

  fail(correlationId: string, error: Error): void {
    const p = this.pending.get(correlationId);
    if (!p) return;
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    p.reject(error);
  }

  failAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.fail(id, error);
  }
}
