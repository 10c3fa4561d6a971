import RequestQueue from 'kafkajs/src/network/requestQueue';

let installed = false;

/**
 * Stops kafkajs 2.2.4's idle timer loop (kafkajs issues 1556 and 1704, unmerged fix in PR 1667).
 * After each response a broker connection's request queue schedules a check of its pending
 * requests, and that check schedules the next one, with a delay of `throttledUntil - now`: -1 - now
 * when nothing is throttled, which Node runs after 1 ms. So every connection ever answered wakes
 * the event loop about a thousand times a second for nothing: with a dozen consumer groups per
 * process, the eight processes of the cluster used a core of two at rest.
 *
 * A check is needed only when a request waits (in flight limit or client-side throttling) or a
 * throttle is still running; a request that cannot be sent at once is queued by `push`, which
 * schedules its own check, and every answer or timeout checks again. Idempotent; every client of
 * the process shares the patched class.
 */
export function stopIdleRequestChecks(): void {
  if (installed) return;
  installed = true;
  const schedule = RequestQueue.prototype.scheduleCheckPendingRequests;
  RequestQueue.prototype.scheduleCheckPendingRequests = function (this: RequestQueue) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
}
