import type { LoginNonceStore, PendingLogin } from '@perp/auth';
import type { HotStore } from '@perp/cache';

const PENDING = (address: string) => `login:pending:${address}`;
const USED = (address: string, nonce: string) => `login:used:${address}:${nonce}`;

/**
 * Pending login nonces in the hot store, so a nonce issued by one gateway replica is accepted by
 * another. Single use across replicas: the first `consume` to set the nonce's "used" marker wins
 * (setIfAbsent is atomic); a used nonce no longer counts as pending.
 */
export class HotStoreLoginNonceStore implements LoginNonceStore {
  constructor(private readonly hot: HotStore) {}

  async put(address: string, pending: PendingLogin, ttlMs: number): Promise<void> {
    await this.hot.set(PENDING(address), JSON.stringify(pending), { ttlMs });
  }

  async get(address: string): Promise<PendingLogin | undefined> {
    const text = await this.hot.get(PENDING(address));
    if (text === undefined) return undefined;
    const pending = JSON.parse(text) as PendingLogin;
    if ((await this.hot.get(USED(address, pending.nonce))) !== undefined) return undefined;
    return pending;
  }

  async consume(address: string, nonce: string): Promise<boolean> {
    const pending = await this.get(address);
    if (pending?.nonce !== nonce) return false;
    // The marker outlives the pending entry (its TTL is at most the login window plus slack).
    if (!(await this.hot.setIfAbsent(USED(address, nonce), '1', { ttlMs: 15 * 60_000 }))) return false;
    // Tidy up unless a newer nonce replaced it meanwhile (the used marker already blocks this one).
    const current = await this.hot.get(PENDING(address));
    if (current !== undefined && (JSON.parse(current) as PendingLogin).nonce === nonce)
      await this.hot.del(PENDING(address));
    return true;
  }
}
