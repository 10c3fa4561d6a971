import { randomBytes } from 'node:crypto';
import { getAddress, verifyTypedData } from 'ethers';
import { NativeError } from '@perp/contracts';
import { buildLoginTypedData, type LoginTypedData } from './login-typed-data';
import { InMemoryLoginNonceStore, type LoginNonceStore } from './nonce-store';

/** Login timestamps are accepted within this distance of now, either way (spec, Limits). */
export const LOGIN_WINDOW_MS = 5 * 60 * 1000;

export interface LoginRequest {
  address: string;
  /** 0x-prefixed hex of the EIP-712 signature (65 bytes, or 64 in EIP-2098 compact form). */
  signature: string;
  /** The `timestamp` of the issued typed data, echoed back (ms; a digit string is accepted). */
  timestamp: number | string;
}

export interface LoginVerifierOptions {
  chainId: number;
  store?: LoginNonceStore;
  windowMs?: number;
  now?: () => number;
  domainName?: string;
}

/**
 * Parses a wallet address: `0x` and 40 hex digits, all lowercase (the spec's form), all uppercase,
 * or mixed case with a valid EIP-55 checksum (a wrong checksum is a typo, not an address).
 * Returns the lowercase form used as the store key and the JWT subject.
 */
export function parseWalletAddress(value: unknown): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) {
    try {
      return getAddress(value).toLowerCase();
    } catch {
      // bad checksum: falls through
    }
  }
  throw new NativeError('INVALID_ADDRESS', 'Invalid wallet address.');
}

function parseSignature(value: unknown): string {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/.test(value))
    throw new NativeError('SIGNATURE_FORMAT_INVALID', 'Signature must be 0x-prefixed hex of 64 or 65 bytes.');
  return value;
}

function parseTimestamp(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new NativeError('INVALID_REQUEST', 'timestamp must be an integer number of milliseconds.');
  return n;
}

/**
 * Wallet login (spec "Native API (JWT)"): {@link issueNonce} hands out a single-use nonce inside EIP-712
 * typed data; {@link verify} checks the wallet's signature over exactly that typed data. Checks, in
 * order, each a NativeError:
 * - address malformed → INVALID_ADDRESS (400)
 * - signature not 0x-prefixed hex of 64/65 bytes → SIGNATURE_FORMAT_INVALID (400)
 * - timestamp not an integer → INVALID_REQUEST (400)
 * - timestamp more than 5 minutes from now, either way → TIMESTAMP_EXPIRED (400)
 * - no pending nonce for the address (never requested, expired, or already used) → USER_NOT_FOUND (404)
 * - timestamp differs from the issued one, or the signer is not the address → SIGNATURE_INVALID (401)
 * The nonce is consumed only by a successful login, atomically, so a replay (or a second concurrent
 * use) finds no nonce; a failed attempt by someone else does not burn the owner's nonce.
 */
export class LoginVerifier {
  private readonly store: LoginNonceStore;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly options: LoginVerifierOptions) {
    this.now = options.now ?? Date.now;
    this.store = options.store ?? new InMemoryLoginNonceStore(this.now);
    this.windowMs = options.windowMs ?? LOGIN_WINDOW_MS;
  }

  /** GET /api/v1/auth/nonce/{address}: a fresh nonce replacing any pending one. */
  async issueNonce(address: string): Promise<LoginTypedData> {
    const addr = parseWalletAddress(address);
    const pending = { nonce: randomBytes(16).toString('hex'), timestamp: this.now() };
    // A second of slack: the window check, not the store's expiry, decides TIMESTAMP_EXPIRED.
    await this.store.put(addr, pending, this.windowMs + 1000);
    return this.typedData(addr, pending.nonce, pending.timestamp);
  }

  /** POST /api/v1/auth/login: the lowercase address to put in the JWT. */
  async verify(request: LoginRequest): Promise<{ address: string }> {
    const address = parseWalletAddress(request.address);
    const signature = parseSignature(request.signature);
    const timestamp = parseTimestamp(request.timestamp);
    if (Math.abs(this.now() - timestamp) > this.windowMs)
      throw new NativeError('TIMESTAMP_EXPIRED', 'Login timestamp is outside the allowed window.');

    const pending = await this.store.get(address);
    if (!pending)
      throw new NativeError('USER_NOT_FOUND', 'No pending login for this address: request a nonce first.');
    // The signed message carries the issued timestamp; the echoed one must be that one.
    if (timestamp !== pending.timestamp)
      throw new NativeError('SIGNATURE_INVALID', 'Timestamp does not match the issued login message.');

    const typed = this.typedData(address, pending.nonce, pending.timestamp);
    let signer: string;
    try {
      signer = verifyTypedData(typed.domain, typed.types, typed.message, signature);
    } catch {
      throw new NativeError('SIGNATURE_INVALID', 'Signature is not valid.');
    }
    if (signer.toLowerCase() !== address)
      throw new NativeError('SIGNATURE_INVALID', 'Signature was not made by this address.');
    if (!(await this.store.consume(address, pending.nonce)))
      throw new NativeError('USER_NOT_FOUND', 'No pending login for this address: request a nonce first.');
    return { address };
  }

  private typedData(address: string, nonce: string, timestamp: number): LoginTypedData {
    const { chainId, domainName } = this.options;
    return buildLoginTypedData({ chainId, address, nonce, timestamp, domainName });
  }
}
