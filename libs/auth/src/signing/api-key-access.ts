import { FapiAuthError } from '@perp/contracts';
import { ipAllowed, type IpList } from '../ip/ip-list';

/** What the access check needs to know about the key named by X-MBX-APIKEY. */
export interface ApiKeyAccess {
  status: 'active' | 'disabled';
  /** As stored ('' = unrestricted) or already parsed. */
  ipWhitelist: string | IpList;
}

/**
 * The checks before the signature, in the spec's order: no such key on this deployment (or no
 * header) → INVALID_API_KEY (401); not active → API_KEY_DISABLED (401); client IP (see clientIp)
 * not whitelisted → IP_NOT_ALLOWED (403). Then verifySignedRequest with the key's secret.
 */
export function checkApiKeyAccess(key: ApiKeyAccess | undefined, ip: string): void {
  if (!key) throw new FapiAuthError('INVALID_API_KEY', 'API key not found.');
  if (key.status !== 'active') throw new FapiAuthError('API_KEY_DISABLED', 'API key is disabled.');
  if (!ipAllowed(key.ipWhitelist, ip))
    throw new FapiAuthError('IP_NOT_ALLOWED', `IP ${ip || '(unknown)'} is not in this API key's whitelist.`);
}
