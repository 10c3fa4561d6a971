import type { ExecutionContext } from '@nestjs/common';
import type { FapiCaller } from './fapi-caller';

/**
 * A last check of a signed request, once its caller is known: SignedRequestGuard calls it after
 * the signature and timestamp are verified and before the key's use is recorded or the handler
 * runs. It refuses by throwing (e.g. FapiError TOO_MANY_REQUESTS when the account's order count is
 * exhausted). Provided under {@link SIGNED_REQUEST_ADMISSION} by another module (the gateway's
 * RateLimitsModule); without a provider every verified request is admitted.
 */
export interface SignedRequestAdmission {
  admit(context: ExecutionContext, caller: FapiCaller): Promise<void>;
}

export const SIGNED_REQUEST_ADMISSION = Symbol('SIGNED_REQUEST_ADMISSION');
