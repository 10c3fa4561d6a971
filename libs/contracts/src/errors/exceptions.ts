import { FAPI_ERRORS, type FapiErrorName } from './fapi-errors';
import { FAPI_AUTH_ERRORS, type FapiAuthErrorCode } from './auth-errors';
import { NATIVE_ERRORS, type NativeErrorCode } from './native-errors';

/** A FAPI business error; rendered as `{code, msg}` with the table's HTTP status. */
export class FapiError extends Error {
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
export class FapiAuthError extends Error {
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
export class NativeError extends Error {
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
