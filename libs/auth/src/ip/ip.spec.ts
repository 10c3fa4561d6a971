import { NativeError } from '@perp/contracts';
import { clientIp } from './client-ip';
import { ipAllowed, IpList, normalizeIp, parseIpWhitelist, parseTrustedProxies } from './ip-list';

function invalidIp(text: string): NativeError {
  try {
    parseIpWhitelist(text);
  } catch (e) {
    expect(e).toBeInstanceOf(NativeError);
    return e as NativeError;
  }
  throw new Error(`expected "${text}" to be rejected`);
}

describe('normalizeIp', () => {
  it('gives one spelling per address', () => {
    expect(normalizeIp('1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('::FFFF:102:304')).toBe('1.2.3.4');
    expect(normalizeIp('0:0:0:0:0:ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeIp('::1')).toBe('::1');
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', 'localhost', '1.2.3', '01.2.3.4', '1.2.3.256', ' 1.2.3.4', '1.2.3.4/32', '::g'])
      expect(normalizeIp(bad)).toBeUndefined();
  });
});

describe('parseIpWhitelist', () => {
  it('treats an empty or blank list as unrestricted', () => {
    expect(parseIpWhitelist('').isEmpty).toBe(true);
    expect(parseIpWhitelist('   ').isEmpty).toBe(true);
    expect(ipAllowed(parseIpWhitelist(''), '203.0.113.9')).toBe(true);
    expect(ipAllowed('', '::1')).toBe(true);
  });

  it('accepts IPv4 and IPv6 addresses with spaces around commas, canonicalised and deduplicated', () => {
    const list = parseIpWhitelist(' 203.0.113.9, 2001:DB8::0:1 ,::ffff:198.51.100.7,203.0.113.9');
    expect(list.toString()).toBe('203.0.113.9,2001:db8::1,198.51.100.7');
  });

  it('accepts CIDR ranges', () => {
    const list = parseIpWhitelist('10.0.0.0/8,2001:db8:1::/48,::ffff:192.168.0.0/112');
    expect(list.toString()).toBe('10.0.0.0/8,2001:db8:1::/48,192.168.0.0/16');
    expect(list.has('10.200.3.4')).toBe(true);
    expect(list.has('11.0.0.1')).toBe(false);
    expect(list.has('2001:db8:1:ffff::5')).toBe(true);
    expect(list.has('2001:db8:2::5')).toBe(false);
    expect(list.has('192.168.77.1')).toBe(true);
  });

  it('rejects malformed entries with 400 INVALID_IP', () => {
    for (const bad of [
      'not-an-ip',
      '1.2.3.4,,5.6.7.8',
      '1.2.3.4,',
      '1.2.3.4;5.6.7.8',
      '1.2.3.4 5.6.7.8',
      '256.1.1.1',
      '1.2.3.4/33',
      '1.2.3.4/',
      '1.2.3.4/-1',
      '2001:db8::/129',
      '::ffff:1.2.3.4/64',
      'fe80::1%eth0',
      'example.com',
      Array.from({ length: 101 }, (_, i) => `10.0.0.${i % 250}`).join(','),
    ]) {
      const e = invalidIp(bad);
      expect(e.code).toBe('INVALID_IP');
      expect(e.status).toBe(400);
    }
  });
});

describe('ipAllowed', () => {
  const list = parseIpWhitelist('203.0.113.9,2001:db8::1');

  it('matches any spelling of a listed address', () => {
    expect(ipAllowed(list, '203.0.113.9')).toBe(true);
    expect(ipAllowed(list, '::ffff:203.0.113.9')).toBe(true);
    expect(ipAllowed(list, '::ffff:cb00:7109')).toBe(true);
    expect(ipAllowed(list, '2001:0DB8:0000::0001')).toBe(true);
    expect(ipAllowed('203.0.113.9', '::ffff:203.0.113.9')).toBe(true);
  });

  it('denies other, malformed or empty client addresses', () => {
    expect(ipAllowed(list, '203.0.113.10')).toBe(false);
    expect(ipAllowed(list, '2001:db8::2')).toBe(false);
    expect(ipAllowed(list, 'garbage')).toBe(false);
    expect(ipAllowed(list, '')).toBe(false);
  });

  it('fails closed on a stored whitelist that does not parse', () => {
    expect(ipAllowed('203.0.113.9,bogus', '203.0.113.9')).toBe(false);
  });
});

describe('clientIp', () => {
  const proxies = parseTrustedProxies('10.0.0.1,10.0.0.2,fd00::/8');

  it('uses the socket address when the peer is not a trusted proxy, whatever the header says', () => {
    expect(clientIp('198.51.100.7', '203.0.113.9', proxies)).toBe('198.51.100.7');
    expect(clientIp('198.51.100.7', '203.0.113.9', IpList.EMPTY)).toBe('198.51.100.7');
    expect(clientIp('::ffff:198.51.100.7', undefined, proxies)).toBe('198.51.100.7');
  });

  it('believes the forwarded client when the peer is a trusted proxy', () => {
    expect(clientIp('10.0.0.1', '203.0.113.9', proxies)).toBe('203.0.113.9');
    expect(clientIp('::ffff:10.0.0.1', ' 203.0.113.9 ', proxies)).toBe('203.0.113.9');
    expect(clientIp('fd00::7', '2001:DB8::1', proxies)).toBe('2001:db8::1');
    expect(clientIp('10.0.0.1', '203.0.113.9', '10.0.0.1')).toBe('203.0.113.9');
  });

  it('skips a chain of trusted proxies', () => {
    expect(clientIp('10.0.0.1', '203.0.113.9, 10.0.0.2', proxies)).toBe('203.0.113.9');
    expect(clientIp('10.0.0.1', ['203.0.113.9', '10.0.0.2'], proxies)).toBe('203.0.113.9');
  });

  it('cannot be spoofed by a client that sends its own X-Forwarded-For through the proxy', () => {
    // The client sent "X-Forwarded-For: 203.0.113.9"; the proxy appended the real peer.
    expect(clientIp('10.0.0.1', '203.0.113.9, 198.51.100.7', proxies)).toBe('198.51.100.7');
  });

  it('accepts hops written with a port', () => {
    expect(clientIp('10.0.0.1', '203.0.113.9:5678', proxies)).toBe('203.0.113.9');
    expect(clientIp('10.0.0.1', '[2001:db8::1]:443', proxies)).toBe('2001:db8::1');
    expect(clientIp('10.0.0.1', '[2001:db8::1]', proxies)).toBe('2001:db8::1');
  });

  it('stops at a malformed hop and keeps the last good address', () => {
    expect(clientIp('10.0.0.1', 'unknown', proxies)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', '', proxies)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', '203.0.113.9, junk, 10.0.0.2', proxies)).toBe('10.0.0.2');
    expect(clientIp('10.0.0.1', '1.2.3.4:99999', proxies)).toBe('10.0.0.1');
  });

  it('returns the proxy itself without a header, the leftmost hop when all are proxies', () => {
    expect(clientIp('10.0.0.1', undefined, proxies)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', '10.0.0.2', proxies)).toBe('10.0.0.2');
  });

  it('gives an empty string for an unusable socket address', () => {
    expect(clientIp(undefined, '203.0.113.9', proxies)).toBe('');
    expect(clientIp('nonsense', '203.0.113.9', proxies)).toBe('');
  });

  it('rejects a malformed TRUSTED_PROXIES value as a configuration error', () => {
    expect(() => parseTrustedProxies('10.0.0.1,proxy.internal')).toThrow(/TRUSTED_PROXIES/);
  });
});
