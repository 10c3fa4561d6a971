/** FAPI authentication failures and their statuses (spec: "FAPI authentication errors"). */
export const FAPI_AUTH_ERRORS = {
  INVALID_API_KEY: 401,
  API_KEY_DISABLED: 401,
  IP_NOT_ALLOWED: 403,
  SIGNATURE_INVALID: 401,
} as const;
export type FapiAuthErrorCode = keyof typeof FAPI_AUTH_ERRORS;

/** `{success:false, data:null, error:{code,message}, timestamp}`; timestamp in whole seconds. */
export interface FapiAuthErrorBody {
  success: false;
  data: null;
  error: { code: FapiAuthErrorCode; message: string };
  timestamp: number;
}

export function fapiAuthErrorBody(
  code: FapiAuthErrorCode,
  message: string,
  nowMs = Date.now(),
): FapiAuthErrorBody {
  return { success: false, data: null, error: { code, message }, timestamp: Math.floor(nowMs / 1000) };
}
