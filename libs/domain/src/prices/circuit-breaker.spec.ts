import fc from 'fast-check';
import {
  afterCallFailed,
  afterCallSucceeded,
  CircuitBreaker,
  circuitAllows,
  circuitStatus,
  CLOSED_CIRCUIT,
  type CircuitState,
} from './circuit-breaker';

const rules = { failuresToOpen: 3, coolDownMs: 30_000 };
const T = 1_700_000_000_000;

describe('circuit breaker', () => {
  it('stays closed below N consecutive failures and opens at the N-th', () => {
    let s: CircuitState = CLOSED_CIRCUIT;
    s = afterCallFailed(s, T, rules);
    s = afterCallFailed(s, T + 1, rules);
    expect(s).toEqual({ failures: 2 });
    expect(circuitStatus(s, T + 1, rules)).toBe('CLOSED');
    s = afterCallFailed(s, T + 2, rules);
    expect(s).toEqual({ failures: 3, openedAt: T + 2 });
    expect(circuitStatus(s, T + 2, rules)).toBe('OPEN');
    expect(circuitAllows(s, T + 2, rules)).toBe(false);
  });

  it('a success in between restarts the count: failures must be consecutive', () => {
    const twice = (s: CircuitState) => afterCallFailed(afterCallFailed(s, T, rules), T, rules);
    expect(circuitStatus(twice(CLOSED_CIRCUIT), T, rules)).toBe('CLOSED');
    const afterSuccess = afterCallSucceeded();
    expect(circuitStatus(twice(afterSuccess), T, rules)).toBe('CLOSED');
    expect(circuitStatus(afterCallFailed(twice(CLOSED_CIRCUIT), T, rules), T, rules)).toBe('OPEN');
  });

  it('half-opens after the cool-down: a good trial closes it, a failed one opens it for another cool-down', () => {
    const open: CircuitState = { failures: 3, openedAt: T };
    expect(circuitStatus(open, T + 29_999, rules)).toBe('OPEN');
    expect(circuitStatus(open, T + 30_000, rules)).toBe('HALF_OPEN');
    expect(circuitAllows(open, T + 30_000, rules)).toBe(true);
    expect(afterCallSucceeded()).toEqual({ failures: 0 });
    const reopened = afterCallFailed(open, T + 31_000, rules);
    expect(reopened).toEqual({ failures: 4, openedAt: T + 31_000 });
    expect(circuitStatus(reopened, T + 60_999, rules)).toBe('OPEN');
    expect(circuitStatus(reopened, T + 61_000, rules)).toBe('HALF_OPEN');
  });

  it('a failure reported while open does not extend the cool-down', () => {
    const open: CircuitState = { failures: 3, openedAt: T };
    expect(afterCallFailed(open, T + 10_000, rules)).toEqual({ failures: 4, openedAt: T });
  });

  it('one failure opens it when failuresToOpen is 1; a zero cool-down half-opens at once', () => {
    const r = { failuresToOpen: 1, coolDownMs: 0 };
    const s = afterCallFailed(CLOSED_CIRCUIT, T, r);
    expect(s.openedAt).toBe(T);
    expect(circuitStatus(s, T, r)).toBe('HALF_OPEN');
  });

  it('the object form follows the same rules and refuses bad rules', () => {
    const b = new CircuitBreaker(rules);
    for (let i = 0; i < 3; i++) {
      expect(b.allows(T)).toBe(true);
      b.failed(T);
    }
    expect(b.status(T)).toBe('OPEN');
    expect(b.allows(T + 30_000)).toBe(true);
    b.succeeded();
    expect(b.state).toEqual({ failures: 0 });
    expect(() => new CircuitBreaker({ failuresToOpen: 0, coolDownMs: 1 })).toThrow(RangeError);
    expect(() => new CircuitBreaker({ failuresToOpen: 1, coolDownMs: -1 })).toThrow(RangeError);
    expect(() => new CircuitBreaker({ failuresToOpen: 1.5, coolDownMs: 1 })).toThrow(RangeError);
  });

  it('never allows a call within a cool-down of the last opening (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ok: fc.boolean(), dt: fc.integer({ min: 0, max: 20_000 }) })),
        (calls) => {
          const b = new CircuitBreaker(rules);
          let now = T;
          let streak = 0;
          for (const c of calls) {
            now += c.dt;
            if (!b.allows(now)) {
              expect(b.state.openedAt).toBeDefined();
              expect(now - b.state.openedAt!).toBeLessThan(rules.coolDownMs);
              continue;
            }
            const wasHalfOpen = b.status(now) === 'HALF_OPEN';
            if (c.ok) b.succeeded();
            else b.failed(now);
            streak = c.ok ? 0 : streak + 1;
            expect(b.status(now) === 'OPEN').toBe(!c.ok && (wasHalfOpen || streak >= rules.failuresToOpen));
          }
        },
      ),
    );
  });
});
