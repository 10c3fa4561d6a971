import { LOGIN_WINDOW_MS, LoginVerifier, type LoginTypedData } from '@perp/auth';
import { MemoryHotStore } from '@perp/cache';
import { NativeError } from '@perp/contracts';
import { type HDNodeWallet, Wallet } from 'ethers';
import { HotStoreLoginNonceStore } from './hot-store-nonce-store';

const T0 = 1_700_000_000_000;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (e instanceof NativeError) return e.code;
    throw e;
  }
}

describe('HotStoreLoginNonceStore (login nonces shared by gateway replicas)', () => {
  let now: number;
  let hot: MemoryHotStore;
  let replicaA: LoginVerifier;
  let replicaB: LoginVerifier;
  let wallet: HDNodeWallet;

  const sign = (t: LoginTypedData) => wallet.signTypedData(t.domain, t.types, t.message);
  const request = async (t: LoginTypedData) => ({
    address: wallet.address,
    signature: await sign(t),
    timestamp: t.message.timestamp,
  });

  beforeEach(() => {
    now = T0;
    hot = new MemoryHotStore({ now: () => now });
    const verifier = () =>
      new LoginVerifier({ chainId: 31337, store: new HotStoreLoginNonceStore(hot), now: () => now });
    replicaA = verifier();
    replicaB = verifier();
    wallet = Wallet.createRandom();
  });

  afterEach(() => hot.close());

  it('a nonce issued by one replica is accepted by the other, once', async () => {
    const r = await request(await replicaA.issueNonce(wallet.address));
    await expect(replicaB.verify(r)).resolves.toEqual({ address: wallet.address.toLowerCase() });
    expect(await codeOf(replicaA.verify(r))).toBe('USER_NOT_FOUND');
    expect(await codeOf(replicaB.verify(r))).toBe('USER_NOT_FOUND');
  });

  it('lets exactly one of concurrent logins on both replicas through', async () => {
    const r = await request(await replicaA.issueNonce(wallet.address));
    const results = await Promise.allSettled([
      replicaA.verify(r),
      replicaB.verify(r),
      replicaA.verify(r),
      replicaB.verify(r),
    ]);
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
  });

  it('a new nonce replaces the pending one; a failed attempt does not burn it', async () => {
    const first = await request(await replicaA.issueNonce(wallet.address));
    now += 1000;
    const typed = await replicaB.issueNonce(wallet.address);
    expect(await codeOf(replicaA.verify(first))).toBe('SIGNATURE_INVALID');
    const forged = {
      ...(await request(typed)),
      signature: await Wallet.createRandom().signTypedData(typed.domain, typed.types, typed.message),
    };
    expect(await codeOf(replicaA.verify(forged))).toBe('SIGNATURE_INVALID');
    await expect(replicaA.verify(await request(typed))).resolves.toBeDefined();
  });

  it('pending nonces expire with the login window', async () => {
    const r = await request(await replicaA.issueNonce(wallet.address));
    now += LOGIN_WINDOW_MS + 2000;
    // The verifier refuses on the window first; the store no longer holds it either.
    expect(await codeOf(replicaB.verify(r))).toBe('TIMESTAMP_EXPIRED');
    expect(await new HotStoreLoginNonceStore(hot).get(wallet.address.toLowerCase())).toBeUndefined();
  });
});
