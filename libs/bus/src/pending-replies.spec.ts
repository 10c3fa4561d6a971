import { BusTimeoutError } from './bus';
import { PendingReplies } from './pending-replies';

describe('PendingReplies: what a timeout says about the request', () => {
  it('never handed to the log: published false, and it may not be sent late', async () => {
    const replies = new PendingReplies();
    const e = await replies.wait('a', 5, 'cmd request').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BusTimeoutError);
    expect((e as BusTimeoutError).published).toBe(false);
    expect((e as BusTimeoutError).message).toContain('never published');
    expect(replies.publishing('a')).toBe(false);
  });

  it('handed to the log before the deadline: published true, the outcome unknown', async () => {
    const replies = new PendingReplies();
    const reply = replies.wait('b', 5, 'cmd request');
    expect(replies.publishing('b')).toBe(true);
    const e = await reply.catch((x: unknown) => x);
    expect((e as BusTimeoutError).published).toBe(true);
    expect((e as BusTimeoutError).message).toContain('outcome unknown');
  });

  it('still queued in this process at the deadline: withdrawn, so published false', async () => {
    const replies = new PendingReplies();
    const reply = replies.wait('c', 5, 'cmd request');
    let withdrawn = false;
    expect(replies.publishing('c', () => (withdrawn = true))).toBe(true);
    const e = await reply.catch((x: unknown) => x);
    expect(withdrawn).toBe(true);
    expect((e as BusTimeoutError).published).toBe(false);
  });

  it('already handed to the broker at the deadline (withdraw refuses): published true', async () => {
    const replies = new PendingReplies();
    const reply = replies.wait('d', 5, 'cmd request');
    replies.publishing('d', () => false);
    const e = await reply.catch((x: unknown) => x);
    expect((e as BusTimeoutError).published).toBe(true);
  });
});
