import { SetMetadata } from '@nestjs/common';
import type { CountRule } from './rate-limit-rules';

export const FAPI_WEIGHT = 'perp:fapi-weight';

/**
 * The request weight of a public FAPI handler (Type NONE), a number or a function of the request's
 * FAPI parameters: `@Weight(bySymbol(1, 40))`. Signed handlers give theirs in `@Signed({ weight })`.
 * Without either, the route's entry in PUBLIC_WEIGHTS applies, else 1.
 */
export const Weight = (rule: CountRule) => SetMetadata(FAPI_WEIGHT, rule);
