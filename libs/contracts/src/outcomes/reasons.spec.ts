import { parseMessage } from '../messages/topics';
import { reply } from '../messages/commands';
import { isOutcomeReason, OUTCOME_REASONS } from './reasons';

describe('outcome reasons', () => {
  it('are unique names, no API numbers', () => {
    expect(new Set(OUTCOME_REASONS).size).toBe(OUTCOME_REASONS.length);
    for (const r of OUTCOME_REASONS) expect(r).toMatch(/^[A-Z][A-Z_]*$/);
    expect(isOutcomeReason('OI_CAP_EXCEEDED')).toBe(true);
    expect(isOutcomeReason('API_KEY_FORMAT')).toBe(false);
  });

  it('a reply refusal carries a reason and no numeric code', () => {
    const base = { correlationId: 'c', ok: false, time: 1 };
    const refusal = {
      ...base,
      error: {
        reason: 'OI_CAP_EXCEEDED',
        msg: 'open interest above its cap',
        details: { side: 'long', current: '8', cap: '10', requestedDelta: '3' },
      },
    };
    expect(reply.parse(refusal)).toEqual(refusal);
    expect(reply.safeParse({ ...base, error: { code: -2010, msg: 'm' } }).success).toBe(false);
    expect(reply.safeParse({ ...base, error: { reason: 'NOPE', msg: 'm' } }).success).toBe(false);
  });

  it('an engine command.result refusal carries a reason', () => {
    const result = {
      id: 'perp.engine.commands.v1/0/1/1',
      v: 1,
      time: 1,
      type: 'command.result',
      symbol: 'BTCUSDT',
      seq: 3,
      user: `0x${'a'.repeat(40)}`,
      command: 'order.place',
      ok: false,
      error: { reason: 'POST_ONLY_WOULD_TAKE', msg: 'post-only order would take liquidity' },
    };
    expect(parseMessage('engineEvents', result)).toEqual(result);
    expect(() => parseMessage('engineEvents', { ...result, error: { code: -2010, msg: 'm' } })).toThrow(
      /reason/,
    );
  });
});
