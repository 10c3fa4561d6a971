import { FapiAuthError } from '@perp/contracts';
import { parseIpWhitelist } from '../ip/ip-list';
import { checkApiKeyAccess } from './api-key-access';

function failure(fn: () => void): FapiAuthError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FapiAuthError);
    return e as FapiAuthError;
  }
  throw new Error('expected a rejection');
}

describe('checkApiKeyAccess', () => {
  it('passes an active key from any IP when unrestricted, or from a whitelisted IP', () => {
    expect(() => checkApiKeyAccess({ status: 'active', ipWhitelist: '' }, '198.51.100.7')).not.toThrow();
    const key = { status: 'active' as const, ipWhitelist: parseIpWhitelist('203.0.113.9') };
    expect(() => checkApiKeyAccess(key, '::ffff:203.0.113.9')).not.toThrow();
  });

  it('maps each failure to its code and status, in the spec order', () => {
    const unknown = failure(() => checkApiKeyAccess(undefined, '203.0.113.9'));
    expect([unknown.code, unknown.status]).toEqual(['INVALID_API_KEY', 401]);
    // Disabled wins over a wrong IP.
    const disabled = failure(() =>
      checkApiKeyAccess({ status: 'disabled', ipWhitelist: '10.0.0.1' }, '1.1.1.1'),
    );
    expect([disabled.code, disabled.status]).toEqual(['API_KEY_DISABLED', 401]);
    const ip = failure(() => checkApiKeyAccess({ status: 'active', ipWhitelist: '10.0.0.1' }, '1.1.1.1'));
    expect([ip.code, ip.status]).toEqual(['IP_NOT_ALLOWED', 403]);
    const noIp = failure(() => checkApiKeyAccess({ status: 'active', ipWhitelist: '10.0.0.1' }, ''));
    expect(noIp.code).toBe('IP_NOT_ALLOWED');
  });
});
