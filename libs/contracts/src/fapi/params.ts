import { Money } from '@perp/domain';
import { FapiError } from '../errors/exceptions';

/**
 * Merged request parameters (query, form or JSON body); a repeated parameter arrives as an array.
 * Routes read them through their schemas (param-schemas.ts), which use `scalar` for the wire rules.
 */
export type RawParams = Record<string, unknown>;

/** A single scalar value; a repeated or structured parameter is malformed (-1102). */
export function scalar(params: RawParams, name: string): string | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v))
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' sent more than once.`);
  if (typeof v === 'object')
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' was malformed.`);
  return String(v);
}

export function required(params: RawParams, name: string): string {
  const v = scalar(params, name);
  if (v === undefined || v === '')
    throw new FapiError(
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`,
    );
  return v;
}

export { Money };
