import { FAPI_ERRORS, type FapiErrorName } from './fapi-errors';
import { FAPI_AUTH_ERRORS, type FapiAuthErrorCode } from './auth-errors';
import { NATIVE_ERRORS, type NativeErrorCode } from './native-errors';

/**
 * An error that is an answer to the client (a refusal, a bad parameter), not a fault: no stack is
 * captured. Walking the stack (and deoptimizing its frames to name them) cost more than the rest of
 * a refused request, so a flood of refusals (429s, bad signatures) was the costliest traffic. Faults
 * stay plain Errors with their stacks, which the error filter logs.
 */
export class ClientAnswerError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** A FAPI business error; rendered as `{code, msg}` with the table's HTTP status. */
export class FapiError extends ClientAnswerError {
  readonly code: number;
  readonly status: number;
  constructor(
    readonly errorName: FapiErrorName,
    message: string,
  ) {
    super(message);
    this.code = FAPI_ERRORS[errorName].code;
    this.status = FAPI_ERRORS[errorName].http;
  }
}

/** A FAPI authentication failure; rendered in the `{success:false,...}` envelope. */
export class FapiAuthError extends ClientAnswerError {
  readonly status: number;
  constructor(
    readonly code: FapiAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.status = FAPI_AUTH_ERRORS[code];
  }
}

/**
 * A native API error. `envelope` chooses between `{error, code}` (default) and
 * `{success:false, error:{code,message}}`; each handler picks one and keeps it.
 */
export class NativeError extends ClientAnswerError {
  readonly status: number;
  constructor(
    readonly code: NativeErrorCode,
    message: string,
    readonly envelope: 'flat' | 'wrapped' = 'flat',
    status?: number,
  ) {
    super(message);
    this.status = status ?? NATIVE_ERRORS[code];
  }
}
