import { BlockList, isIP } from 'node:net';
import { NativeError } from '@perp/contracts';

/** Upper bound on whitelist entries: a key's list is small; this bounds the stored string. */
export const MAX_IP_LIST_ENTRIES = 100;

const MAPPED_PREFIX = '::ffff:';

/**
 * One canonical spelling per address, or undefined when it is not an IP: IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`, as dual-stack sockets report IPv4 peers) becomes IPv4, IPv6 is lower-case and
 * compressed (`2001:DB8:0::1` -> `2001:db8::1`), a zone (`%eth0`) is dropped.
 */
export function normalizeIp(value: string): string | undefined {
  const zone = value.indexOf('%');
  const addr = zone >= 0 ? value.slice(0, zone) : value;
  const kind = isIP(addr);
  if (kind === 4) return addr;
  if (kind !== 6) return undefined;
  // WHATWG URL serialises IPv6 hosts canonically (RFC 5952), with the tail as hex groups.
  const canonical = new URL(`http://[${addr}]`).hostname.slice(1, -1);
  if (canonical.startsWith(MAPPED_PREFIX)) {
    const groups = canonical.slice(MAPPED_PREFIX.length).split(':');
    if (groups.length === 2) {
      const n = (parseInt(groups[0]!, 16) << 16) | parseInt(groups[1]!, 16);
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    }
  }
  return canonical;
}

/** Why an entry was refused, or the parsed entry. */
type Entry = { text: string; add: (b: BlockList) => void } | { error: string };

function parseEntry(raw: string): Entry {
  const slash = raw.indexOf('/');
  const addrText = slash >= 0 ? raw.slice(0, slash) : raw;
  if (addrText.includes('%')) return { error: `"${raw}" has a zone; zones do not identify a client` };
  const addr = normalizeIp(addrText);
  if (addr === undefined) return { error: `"${raw}" is not an IPv4 or IPv6 address` };
  const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6';
  if (slash < 0) return { text: addr, add: (b) => b.addAddress(addr, type) };

  const prefixText = raw.slice(slash + 1);
  let prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  // `::ffff:10.0.0.0/104` is an IPv4 range written as IPv6.
  if (type === 'ipv4' && isIP(addrText) === 6) prefix -= 96;
  const max = type === 'ipv4' ? 32 : 128;
  if (!(prefix >= 0 && prefix <= max)) return { error: `"${raw}" has a bad prefix length` };
  return { text: `${addr}/${prefix}`, add: (b) => b.addSubnet(addr, prefix, type) };
}

/**
 * A parsed comma-separated list of addresses and CIDR ranges (an API key's ip_whitelist, or the
 * trusted proxies). Empty means "no entries": for a whitelist, unrestricted.
 */
export class IpList {
  private constructor(
    /** Canonical entries, in the order given. */
    readonly entries: readonly string[],
    private readonly blocks: BlockList,
  ) {}

  static readonly EMPTY = new IpList([], new BlockList());

  /** Parses the list; the first bad entry is reported, nothing is half-accepted. */
  static parse(text: string): { list: IpList } | { error: string } {
    const trimmed = text.trim();
    if (trimmed === '') return { list: IpList.EMPTY };
    const parts = trimmed.split(',').map((p) => p.trim());
    if (parts.length > MAX_IP_LIST_ENTRIES) return { error: `at most ${MAX_IP_LIST_ENTRIES} entries` };
    const blocks = new BlockList();
    const entries: string[] = [];
    for (const part of parts) {
      if (part === '') return { error: 'empty entry' };
      const entry = parseEntry(part);
      if ('error' in entry) return { error: entry.error };
      if (entries.includes(entry.text)) continue;
      entry.add(blocks);
      entries.push(entry.text);
    }
    return { list: new IpList(entries, blocks) };
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** Whether the address (any spelling) is one of the entries or inside one of the ranges. */
  has(ip: string): boolean {
    const addr = normalizeIp(ip);
    if (addr === undefined || this.isEmpty) return false;
    return this.blocks.check(addr, isIP(addr) === 4 ? 'ipv4' : 'ipv6');
  }

  /** The canonical comma-separated form, fit for storing and echoing back. */
  toString(): string {
    return this.entries.join(',');
  }
}

/**
 * Validates an API key's `ip_whitelist`: comma-separated IPv4/IPv6 addresses, spaces around commas
 * allowed. CIDR ranges (`10.0.0.0/8`) are accepted too, an extension of the spec's "IPs" that
 * keeps the wire shape. '' = unrestricted. Malformed -> 400 INVALID_IP.
 */
export function parseIpWhitelist(text: string): IpList {
  const parsed = IpList.parse(text);
  if ('error' in parsed) throw new NativeError('INVALID_IP', `Invalid ip_whitelist: ${parsed.error}.`);
  return parsed.list;
}

/** Parses `TRUSTED_PROXIES`; a bad entry is a configuration error, not a client error. */
export function parseTrustedProxies(text: string): IpList {
  const parsed = IpList.parse(text);
  if ('error' in parsed) throw new Error(`TRUSTED_PROXIES: ${parsed.error}`);
  return parsed.list;
}

/**
 * Whether a client IP may use a key with this whitelist. Empty = unrestricted. A stored string
 * that no longer parses denies everything (fail closed), as does an unparsable client IP.
 */
export function ipAllowed(whitelist: IpList | string, ip: string): boolean {
  let list: IpList;
  if (typeof whitelist === 'string') {
    const parsed = IpList.parse(whitelist);
    if ('error' in parsed) return false;
    list = parsed.list;
  } else list = whitelist;
  return list.isEmpty || list.has(ip);
}
