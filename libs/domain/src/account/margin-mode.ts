/**
 * Account margin modes.
 *
 * - CROSS: every position draws on the whole wallet (the only mode FAPI exposes, as CROSSED).
 * - ISOLATED (native): each position holds its own collateral, moved out of the available balance
 *   when it opens; the user can add collateral and remove what exceeds the initial margin.
 * - UNIFIED (native): cross margin over all symbols, computed exactly as CROSS. Exchanges use the
 *   name for multi-asset collateral, but each deployment settles in one asset (USDT), so there is
 *   nothing more to unify; the mode exists so the native API can name it, not to change the maths.
 *
 * The mode belongs to the account, not to a position; switching needs no open orders and no open
 * positions, so a position never changes mode while it lives.
 */
export const MARGIN_MODES = ['CROSS', 'ISOLATED', 'UNIFIED'] as const;
export type MarginMode = (typeof MARGIN_MODES)[number];

/** Accepts the modes in any case, plus FAPI's spelling CROSSED; anything else is undefined. */
export function parseMarginMode(value: unknown): MarginMode | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toUpperCase();
  if (v === 'CROSSED') return 'CROSS';
  return (MARGIN_MODES as readonly string[]).includes(v) ? (v as MarginMode) : undefined;
}

export function isIsolated(mode: MarginMode): boolean {
  return mode === 'ISOLATED';
}

/** The lowercase `marginType` of position-risk rows. */
export function marginTypeOf(mode: MarginMode): 'cross' | 'isolated' {
  return isIsolated(mode) ? 'isolated' : 'cross';
}
