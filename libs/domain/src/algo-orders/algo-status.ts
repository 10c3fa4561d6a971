/** Binance's algo order states: NEW waits for its trigger; the others are where it ended up. */
export const ALGO_STATUSES = ['NEW', 'TRIGGERED', 'FINISHED', 'CANCELED', 'EXPIRED', 'FAILED'] as const;
export type AlgoStatus = (typeof ALGO_STATUSES)[number];

/**
 * What happens to an algo order: TRIGGER (the mark reached it and its order went out), FINISH (that
 * order left the book), CANCEL, EXPIRE (GTD reached), FAIL (its order was refused at firing, by
 * pre-trade or by the engine).
 */
export type AlgoTransition = 'TRIGGER' | 'FINISH' | 'CANCEL' | 'EXPIRE' | 'FAIL';

const NEXT: Record<AlgoStatus, Partial<Record<AlgoTransition, AlgoStatus>>> = {
  NEW: { TRIGGER: 'TRIGGERED', CANCEL: 'CANCELED', EXPIRE: 'EXPIRED', FAIL: 'FAILED' },
  TRIGGERED: { FINISH: 'FINISHED', FAIL: 'FAILED' },
  FINISHED: {},
  CANCELED: { CANCEL: 'CANCELED' },
  EXPIRED: {},
  FAILED: {},
};

/** The state after `transition`, or undefined when it does not apply to `status`. */
export function nextAlgoStatus(status: AlgoStatus, transition: AlgoTransition): AlgoStatus | undefined {
  return NEXT[status][transition];
}

/** Only NEW waits; every other state is terminal for the trigger (TRIGGERED waits for its order). */
export function isAlgoOpen(status: AlgoStatus): boolean {
  return status === 'NEW';
}
