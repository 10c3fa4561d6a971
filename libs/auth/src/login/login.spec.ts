import { Signature, Wallet, type HDNodeWallet } from 'ethers';
import { NativeError } from '@perp/contracts';
import { buildLoginTypedData, LOGIN_DOMAIN_NAME, type LoginTypedData } from './login-typed-data';
import { LOGIN_WINDOW_MS, LoginVerifier, parseWalletAddress, type LoginRequest } from './login-verifier';
import { InMemoryLoginNonceStore } from './nonce-store';

const CHAIN_ID = 31337;
const T0 = 1_700_000_000_000;

async function rejection(p: Promise<unknown>): Promise<NativeError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof NativeError)) throw new Error(`expected a NativeError, got ${String(e)}`);
  return e;
}

async function expectNative(p: Promise<unknown>, code: string, status: number): Promise<void> {
  const e = await rejection(p);
  expect(e.code).toBe(code);
  expect(e.status).toBe(status);
}

function sign(wallet: HDNodeWallet, t: LoginTypedData): Promise<string> {
  return wallet.signTypedData(t.domain, t.types, t.message);
}

describe('buildLoginTypedData', () => {
  it('returns EIP-712 typed data with the domain, the Login type and the message fields', () => {
    const t = buildLoginTypedData({
      chainId: CHAIN_ID,
      address: '0x' + 'ab'.repeat(20),
      nonce: 'n1',
      timestamp: T0,
    });
    expect(t.domain).toEqual({ name: LOGIN_DOMAIN_NAME, version: '1', chainId: CHAIN_ID });
    expect(t.primaryType).toBe('Login');
    expect(t.types.Login.map((f) => f.name)).toEqual(['statement', 'address', 'nonce', 'timestamp']);
    expect(t.message).toMatchObject({
      address: '0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB',
      nonce: 'n1',
      timestamp: T0,
    });
    expect(Object.keys(t.types)).toEqual(['Login']);
    expect(JSON.parse(JSON.stringify(t))).toEqual(t);
  });
});

describe('parseWalletAddress', () => {
  it('accepts lowercase, all-uppercase and checksummed addresses, returning lowercase', () => {
    const w = Wallet.createRandom();
    const lower = w.address.toLowerCase();
    expect(parseWalletAddress(lower)).toBe(lower);
    expect(parseWalletAddress(w.address)).toBe(lower);
    expect(parseWalletAddress('0x' + lower.slice(2).toUpperCase())).toBe(lower);
  });

  it('rejects malformed addresses and bad checksums with INVALID_ADDRESS', () => {
    const w = Wallet.createRandom();
    const badChecksum = w.address.replace(/[a-f]/, (c) => c.toUpperCase());
    for (const bad of [
      '',
      w.address.slice(2),
      w.address.slice(0, 41),
      w.address + '0',
      '0X' + w.address.slice(2),
      '0x' + 'g'.repeat(40),
      badChecksum === w.address ? '0x' + 'G'.repeat(40) : badChecksum,
      42,
      undefined,
    ]) {
      let err: unknown;
      try {
        parseWalletAddress(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(NativeError);
      expect((err as NativeError).code).toBe('INVALID_ADDRESS');
      expect((err as NativeError).status).toBe(400);
    }
  });
});

describe('LoginVerifier', () => {
  let now: number;
  let store: InMemoryLoginNonceStore;
  let verifier: LoginVerifier;
  let wallet: HDNodeWallet;
  let other: HDNodeWallet;

  beforeAll(() => {
    wallet = Wallet.createRandom();
    other = Wallet.createRandom();
  });

  beforeEach(() => {
    now = T0;
    store = new InMemoryLoginNonceStore(() => now);
    verifier = new LoginVerifier({ chainId: CHAIN_ID, store, now: () => now });
  });

  async function issuedAndSigned(signer: HDNodeWallet = wallet) {
    const typed = await verifier.issueNonce(wallet.address.toLowerCase());
    const signature = await sign(signer, typed);
    const request: LoginRequest = {
      address: wallet.address.toLowerCase(),
      signature,
      timestamp: typed.message.timestamp,
    };
    return { typed, signature, request };
  }

  it('logs in a real wallet that signed the issued typed data', async () => {
    const { typed, request } = await issuedAndSigned();
    expect(typed.message.address).toBe(wallet.address);
    expect(typed.message.timestamp).toBe(T0);
    expect(typed.message.nonce).toMatch(/^[0-9a-f]{32}$/);
    await expect(verifier.verify(request)).resolves.toEqual({ address: wallet.address.toLowerCase() });
  });

  it('accepts the checksummed address, a digit-string timestamp and an EIP-2098 compact signature', async () => {
    const { request } = await issuedAndSigned();
    const compact = Signature.from(request.signature).compactSerialized;
    expect(compact.length).toBe(130);
    await expect(
      verifier.verify({ address: wallet.address, signature: compact, timestamp: String(request.timestamp) }),
    ).resolves.toEqual({ address: wallet.address.toLowerCase() });
  });

  it('rejects a replayed login signature: the nonce works once', async () => {
    const { request } = await issuedAndSigned();
    await verifier.verify(request);
    await expectNative(verifier.verify(request), 'USER_NOT_FOUND', 404);
    // After a new nonce the old signature is for the old message.
    now += 1000;
    await verifier.issueNonce(wallet.address);
    await expectNative(verifier.verify(request), 'SIGNATURE_INVALID', 401);
  });

  it('lets only one of two concurrent logins with the same signature through', async () => {
    const { request } = await issuedAndSigned();
    const results = await Promise.allSettled([verifier.verify(request), verifier.verify(request)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((failed.reason as NativeError).code).toBe('USER_NOT_FOUND');
  });

  it('rejects a signature made by another wallet, without burning the owner nonce', async () => {
    const { typed } = await issuedAndSigned();
    const forged = await sign(other, typed);
    const request = { address: wallet.address, signature: forged, timestamp: typed.message.timestamp };
    await expectNative(verifier.verify(request), 'SIGNATURE_INVALID', 401);
    const genuine = await sign(wallet, typed);
    await expect(verifier.verify({ ...request, signature: genuine })).resolves.toBeDefined();
  });

  it('rejects signatures over tampered typed data', async () => {
    const typed = await verifier.issueNonce(wallet.address);
    const variants: LoginTypedData[] = [
      { ...typed, message: { ...typed.message, nonce: typed.message.nonce.replace(/.$/, 'x') } },
      { ...typed, message: { ...typed.message, timestamp: typed.message.timestamp + 1 } },
      { ...typed, message: { ...typed.message, statement: 'Approve everything' } },
      { ...typed, domain: { ...typed.domain, chainId: 1 } },
      { ...typed, domain: { ...typed.domain, name: 'Other Exchange' } },
      { ...typed, domain: { ...typed.domain, version: '2' } },
    ];
    for (const t of variants) {
      const signature = await sign(wallet, t);
      await expectNative(
        verifier.verify({ address: wallet.address, signature, timestamp: typed.message.timestamp }),
        'SIGNATURE_INVALID',
        401,
      );
    }
    // Nothing above consumed the nonce.
    await expect(
      verifier.verify({ address: wallet.address, signature: await sign(wallet, typed), timestamp: T0 }),
    ).resolves.toBeDefined();
  });

  it('requires the echoed timestamp to be the issued one', async () => {
    const { request } = await issuedAndSigned();
    await expectNative(verifier.verify({ ...request, timestamp: T0 + 1 }), 'SIGNATURE_INVALID', 401);
    await expectNative(verifier.verify({ ...request, timestamp: T0 - 1000 }), 'SIGNATURE_INVALID', 401);
  });

  it('does not accept a signature for another deployment (chain id) sharing the store', async () => {
    const { request } = await issuedAndSigned();
    const otherChain = new LoginVerifier({ chainId: 42161, store, now: () => now });
    await expectNative(otherChain.verify(request), 'SIGNATURE_INVALID', 401);
  });

  it('accepts a login 5 minutes after the nonce and rejects one 5 minutes and 1 ms after', async () => {
    const { request } = await issuedAndSigned();
    now = T0 + LOGIN_WINDOW_MS;
    await expect(verifier.verify(request)).resolves.toBeDefined();
    const second = await issuedAndSigned();
    now += LOGIN_WINDOW_MS + 1;
    await expectNative(verifier.verify(second.request), 'TIMESTAMP_EXPIRED', 400);
  });

  it('rejects a timestamp more than 5 minutes in the future', async () => {
    const { request } = await issuedAndSigned();
    await expectNative(
      verifier.verify({ ...request, timestamp: T0 + LOGIN_WINDOW_MS + 1 }),
      'TIMESTAMP_EXPIRED',
      400,
    );
  });

  it('answers USER_NOT_FOUND when no nonce was requested', async () => {
    const typed = buildLoginTypedData({
      chainId: CHAIN_ID,
      address: other.address,
      nonce: 'made-up',
      timestamp: T0,
    });
    const signature = await sign(other, typed);
    await expectNative(
      verifier.verify({ address: other.address, signature, timestamp: T0 }),
      'USER_NOT_FOUND',
      404,
    );
  });

  it('answers SIGNATURE_FORMAT_INVALID for a signature that is not 0x-prefixed hex of 64/65 bytes', async () => {
    const { request } = await issuedAndSigned();
    for (const bad of [
      request.signature.slice(2),
      '0X' + request.signature.slice(2),
      request.signature.slice(0, -2) + 'zz',
      request.signature.slice(0, -4),
      request.signature + '00',
      '',
      '0x',
      12345,
      null,
    ])
      await expectNative(
        verifier.verify({ ...request, signature: bad as string }),
        'SIGNATURE_FORMAT_INVALID',
        400,
      );
    await expect(verifier.verify(request)).resolves.toBeDefined();
  });

  it('answers SIGNATURE_INVALID for well-formed bytes that are no signature', async () => {
    const { request } = await issuedAndSigned();
    await expectNative(
      verifier.verify({ ...request, signature: '0x' + '00'.repeat(65) }),
      'SIGNATURE_INVALID',
      401,
    );
    await expectNative(
      verifier.verify({ ...request, signature: '0x' + 'ff'.repeat(65) }),
      'SIGNATURE_INVALID',
      401,
    );
  });

  it('answers INVALID_ADDRESS on the nonce and login calls, INVALID_REQUEST for a non-integer timestamp', async () => {
    await expectNative(verifier.issueNonce('0x1234'), 'INVALID_ADDRESS', 400);
    const { request } = await issuedAndSigned();
    await expectNative(verifier.verify({ ...request, address: 'wallet' }), 'INVALID_ADDRESS', 400);
    for (const t of ['soon', 1.5, -1, '', NaN, '1e12'])
      await expectNative(verifier.verify({ ...request, timestamp: t as number }), 'INVALID_REQUEST', 400);
  });
});

describe('InMemoryLoginNonceStore', () => {
  it('expires entries after their ttl and consumes each nonce once', async () => {
    let now = 0;
    const store = new InMemoryLoginNonceStore(() => now);
    await store.put('a', { nonce: 'n', timestamp: 0 }, 100);
    expect(await store.consume('a', 'other')).toBe(false);
    now = 99;
    expect(await store.get('a')).toEqual({ nonce: 'n', timestamp: 0 });
    expect(await store.consume('a', 'n')).toBe(true);
    expect(await store.consume('a', 'n')).toBe(false);
    await store.put('b', { nonce: 'm', timestamp: 0 }, 100);
    now = 199;
    expect(await store.get('b')).toBeUndefined();
    expect(await store.consume('b', 'm')).toBe(false);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const store = new InMemoryLoginNonceStore(() => 0, 3);
    for (const a of ['a', 'b', 'c', 'd']) await store.put(a, { nonce: a, timestamp: 0 }, 1000);
    expect(store.size).toBe(3);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('d')).toEqual({ nonce: 'd', timestamp: 0 });
  });
});
