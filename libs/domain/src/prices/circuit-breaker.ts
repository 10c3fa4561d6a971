export interface CircuitBreakerRules {
  /** Consecutive failures that open the circuit (at least 1). */
  failuresToOpen: number;
  /** How long an open circuit refuses calls before it lets one trial through (half-open). */
  coolDownMs: number;
}

/** CLOSED: calls go through. OPEN: refused until the cool-down ends. HALF_OPEN: one trial call. */
export type CircuitStatus = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export interface CircuitState {
  /** Consecutive failures since the last success. */
  failures: number;
  /** When the circuit last opened; absent while closed. */
  openedAt?: number;
}

export const CLOSED_CIRCUIT: CircuitState = Object.freeze({ failures: 0 });

export function checkCircuitRules(rules: CircuitBreakerRules): CircuitBreakerRules {
  if (!Number.isSafeInteger(rules.failuresToOpen) || rules.failuresToOpen < 1)
    throw new RangeError('failuresToOpen must be a whole number >= 1');
  if (!Number.isSafeInteger(rules.coolDownMs) || rules.coolDownMs < 0)
    throw new RangeError('coolDownMs must be a whole number >= 0');
  return rules;
}

export function circuitStatus(state: CircuitState, now: number, rules: CircuitBreakerRules): CircuitStatus {
  if (state.openedAt === undefined) return 'CLOSED';
  return now - state.openedAt >= rules.coolDownMs ? 'HALF_OPEN' : 'OPEN';
}

/** Whether a call may be made now (closed, or half-open for its trial). */
export function circuitAllows(state: CircuitState, now: number, rules: CircuitBreakerRules): boolean {
  return circuitStatus(state, now, rules) !== 'OPEN';
}

/** A call succeeded: the circuit closes and the failure count restarts. */
export function afterCallSucceeded(): CircuitState {
  return CLOSED_CIRCUIT;
}

/**
 * A call failed: the circuit opens at the failuresToOpen-th consecutive failure; a failed trial
 * (half-open) opens it again for a whole cool-down. A failure reported while open changes nothing
 * but the count (the call should not have been made).
 */
export function afterCallFailed(state: CircuitState, now: number, rules: CircuitBreakerRules): CircuitState {
  const failures = state.failures + 1;
  switch (circuitStatus(state, now, rules)) {
    case 'OPEN':
      return { failures, openedAt: state.openedAt };
    case 'HALF_OPEN':
      return { failures, openedAt: now };
    case 'CLOSED':
      return failures >= rules.failuresToOpen ? { failures, openedAt: now } : { failures };
  }
}

/** The same rules as a small stateful object, for a source polled by an adapter. */
export class CircuitBreaker {
  private current: CircuitState = CLOSED_CIRCUIT;

  constructor(readonly rules: CircuitBreakerRules) {
    checkCircuitRules(rules);
  }

  get state(): CircuitState {
    return this.current;
  }

  status(now: number): CircuitStatus {
    return circuitStatus(this.current, now, this.rules);
  }

  allows(now: number): boolean {
    return circuitAllows(this.current, now, this.rules);
  }

  succeeded(): void {
    this.current = afterCallSucceeded();
  }

  failed(now: number): void {
    this.current = afterCallFailed(this.current, now, this.rules);
  }
}
