import { isIP } from 'node:net';
import { IpList, normalizeIp, parseTrustedProxies } from './ip-list';

function isPort(s: string): boolean {
  return /^\d{1,5}$/.test(s) && Number(s) <= 65535;
}

/** One X-Forwarded-For element; some proxies add a port (`1.2.3.4:5678`, `[::1]:80`). */
function parseHop(hop: string): string | undefined {
  const h = hop.trim();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    const rest = h.slice(end + 1);
    if (end < 0 || (rest !== '' && !(rest.startsWith(':') && isPort(rest.slice(1))))) return undefined;
    return normalizeIp(h.slice(1, end));
  }
  const colon = h.indexOf(':');
  if (colon >= 0 && colon === h.lastIndexOf(':') && isIP(h.slice(0, colon)) === 4) {
    return isPort(h.slice(colon + 1)) ? h.slice(0, colon) : undefined;
  }
  return normalizeIp(h);
}

/**
 * The client's address for whitelist checks and logs.
 *
 * The socket peer is the answer unless it is a trusted proxy; only then is X-Forwarded-For read,
 * from the right (the hop our proxy appended) leftwards, skipping our own proxies: the first hop
 * that is not a trusted proxy is the client. With one honest proxy that is the header's first
 * entry, as the spec says; reading from the right means a client that sends its own
 * `X-Forwarded-For: <whitelisted ip>` gains nothing, since the proxy appends the real address after
 * it. A malformed hop stops the walk at the last address known to be good (fail closed). If every
 * hop is a trusted proxy, the leftmost one is returned. Addresses come back normalised
 * (`::ffff:1.2.3.4` -> `1.2.3.4`); an unusable socket address gives ''.
 */
export function clientIp(
  socketAddress: string | undefined,
  xForwardedFor: string | readonly string[] | undefined,
  trustedProxies: IpList | string,
): string {
  const trusted = typeof trustedProxies === 'string' ? parseTrustedProxies(trustedProxies) : trustedProxies;
  let current = socketAddress === undefined ? undefined : normalizeIp(socketAddress);
  if (current === undefined) return '';
  if (!trusted.has(current) || xForwardedFor === undefined) return current;

  const header = typeof xForwardedFor === 'string' ? xForwardedFor : xForwardedFor.join(',');
  const hops = header.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseHop(hops[i]!);
    if (hop === undefined) return current;
    current = hop;
    if (!trusted.has(hop)) return hop;
  }
  return current;
}
