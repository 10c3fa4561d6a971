/** A nonce handed out by the nonce endpoint and not yet used. */
export interface PendingLogin {
  nonce: string;
  /** The `timestamp` of the typed data issued with this nonce (ms). */
  timestamp: number;
}

/**
 * Where pending login nonces live between the two login calls: one per address (a new request
 * replaces the old one). Async so a Redis implementation fits; keys are lowercase addresses.
 */
export interface LoginNonceStore {
  put(address: string, pending: PendingLogin, ttlMs: number): Promise<void>;
  get(address: string): Promise<PendingLogin | undefined>;
  /** Deletes the entry only if it still holds this nonce; true when this call deleted it (single use). */
  consume(address: string, nonce: string): Promise<boolean>;
}

/** Bounds memory when someone requests nonces for many addresses: the oldest pending ones go first. */
export const DEFAULT_MAX_PENDING_LOGINS = 100_000;

/** The embedded store: a Map in insertion order, so expired and evicted entries are at the front. */
export class InMemoryLoginNonceStore implements LoginNonceStore {
  private readonly entries = new Map<string, PendingLogin & { expiresAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = DEFAULT_MAX_PENDING_LOGINS,
  ) {}

  async put(address: string, pending: PendingLogin, ttlMs: number): Promise<void> {
    this.entries.delete(address);
    this.sweep();
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(address, { ...pending, expiresAt: this.now() + ttlMs });
  }

  async get(address: string): Promise<PendingLogin | undefined> {
    const e = this.entries.get(address);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(address);
      return undefined;
    }
    return { nonce: e.nonce, timestamp: e.timestamp };
  }

  async consume(address: string, nonce: string): Promise<boolean> {
    const e = this.entries.get(address);
    if (!e || e.nonce !== nonce || e.expiresAt <= this.now()) return false;
    return this.entries.delete(address);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [address, e] of this.entries) {
      if (e.expiresAt > now) break;
      this.entries.delete(address);
    }
  }
}
