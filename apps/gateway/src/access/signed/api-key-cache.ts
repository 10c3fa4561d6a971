import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type AuthSecrets, decryptSecret } from '@perp/auth';
import { HOT_STORE, type HotStore, type Unsubscribe } from '@perp/cache';
import type { Chain } from '@perp/domain';
import { type ApiKeyEntity, ApiKeyRepository, type ApiKeyStatus, UserRepository } from '@perp/persistence';
import { CHAIN } from '@perp/runtime';
import { ACCESS_OPTIONS, type ApiAccessOptions, DEFAULT_ACCESS_OPTIONS } from '../access-options';
import { AUTH_SECRETS } from '../auth-secrets';

/** What a signed request needs to know about its key; shared through the hot store (no secret). */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  /** The owner's lowercase wallet address. */
  address: string;
  status: ApiKeyStatus;
  /** Canonical comma-separated list; '' = unrestricted. */
  ipWhitelist: string;
}

/** A decrypted secret. Private field: logging or serialising the holder does not show it. */
export class ApiKeySecret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[secret]';
  }
}

export interface ResolvedApiKey {
  record: ApiKeyRecord;
  secret: ApiKeySecret;
}

/** Hot-store key of a record; holds the record's JSON or a tombstone. */
export const apiKeyRecordKey = (apiKey: string) => `api-key:${apiKey}`;
/** Every replica drops a deleted key's decrypted secret from memory when it hears of it here. */
export const API_KEY_REVOKED_CHANNEL = 'api-keys:revoked';

const TOMBSTONE = JSON.stringify({ deleted: true });
// Longer than any load can take, so a load that read the row before the delete cannot put it back.
const TOMBSTONE_TTL_MS = 15 * 60_000;

export function recordOf(entity: ApiKeyEntity, address: string): ApiKeyRecord {
  return {
    id: entity.id,
    userId: entity.userId,
    address,
    status: entity.status,
    ipWhitelist: entity.ipWhitelist,
  };
}

/**
 * API keys as the signed-request guard sees them. The mutable part (status, whitelist) lives in the
 * hot store and is read on every request, so a PUT or DELETE on one gateway replica is in force on
 * every replica as soon as it has answered: writers overwrite the record (or leave a tombstone)
 * after the database change, and loaders only fill an absent entry (setIfAbsent), so a load racing
 * a change cannot put back the old state. The secret never changes for a key, so its decrypted
 * form is cached in this process only (LRU), never in the hot store or a log.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly secrets = new Map<string, { id: string; secret: ApiKeySecret }>();
  private readonly loads = new Map<string, Promise<ResolvedApiKey | undefined>>();
  /** The last record text read per key and its parse (frozen: every request shares it). */
  private readonly records = new Map<string, { text: string; record: ApiKeyRecord | undefined }>();
  private readonly options: Required<ApiAccessOptions>;
  private unsubscribe?: Unsubscribe;

  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly apiKeys: ApiKeyRepository,
    private readonly users: UserRepository,
    @Inject(AUTH_SECRETS) private readonly auth: AuthSecrets,
    @Inject(ACCESS_OPTIONS) options: ApiAccessOptions,
    @Inject(CHAIN) private readonly chain: Chain,
  ) {
    this.options = { ...DEFAULT_ACCESS_OPTIONS, ...options };
  }

  async onModuleInit(): Promise<void> {
    await this.apiKeys.claimUnowned(this.chain.name);
    this.unsubscribe = await this.hot.subscribe(API_KEY_REVOKED_CHANNEL, (apiKey) => {
      this.secrets.delete(apiKey);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** The key named by X-MBX-APIKEY, any status; undefined when there is none (deleted included). */
  async resolve(apiKey: string): Promise<ResolvedApiKey | undefined> {
    const text = await this.hot.get(apiKeyRecordKey(apiKey));
    if (text !== undefined) {
      const record = this.parsed(apiKey, text);
      if (!record) return undefined;
      const secret = this.cachedSecret(apiKey, record.id);
      if (secret) return { record, secret };
      // Another replica filled the record; this one still needs the secret from the database.
      const loaded = await this.load(apiKey);
      return loaded && loaded.record.id === record.id ? { record, secret: loaded.secret } : undefined;
    }
    const loaded = await this.load(apiKey);
    if (!loaded) return undefined;
    const record = await this.fill(apiKey, loaded.record);
    if (record && record.id === loaded.record.id) return { record, secret: loaded.secret };
    this.secrets.delete(apiKey); // deleted while it loaded
    return undefined;
  }

  /** The record in `text`, parsed once per text seen for the key (the hot store is read per request). */
  private parsed(apiKey: string, text: string): ApiKeyRecord | undefined {
    const last = this.records.get(apiKey);
    if (last?.text === text) return last.record;
    const record = parseRecord(text);
    if (this.records.size >= this.options.secretCacheSize) this.records.clear();
    this.records.set(apiKey, { text, record });
    return record;
  }

  /** After a create or an update: the record as it now is in the database. */
  async store(apiKey: string, record: ApiKeyRecord): Promise<void> {
    await this.hot.set(apiKeyRecordKey(apiKey), JSON.stringify(record), { ttlMs: this.options.recordTtlMs });
  }

  /** The secret of a key just created here (saves a database read and a decryption on first use). */
  rememberSecret(apiKey: string, id: string, secret: string): void {
    this.putSecret(apiKey, id, new ApiKeySecret(secret));
  }

  /** After a delete: refused everywhere from now on; replicas forget the secret. */
  async revoke(apiKey: string): Promise<void> {
    await this.hot.set(apiKeyRecordKey(apiKey), TOMBSTONE, { ttlMs: TOMBSTONE_TTL_MS });
    this.secrets.delete(apiKey);
    await this.hot.publish(API_KEY_REVOKED_CHANNEL, apiKey);
  }

  /** Whether this process holds the key's decrypted secret (tests). */
  holdsSecret(apiKey: string): boolean {
    return this.secrets.has(apiKey);
  }

  /** Decrypted secrets held in memory (tests, metrics). */
  get cachedSecrets(): number {
    return this.secrets.size;
  }

  private async fill(apiKey: string, record: ApiKeyRecord): Promise<ApiKeyRecord | undefined> {
    const key = apiKeyRecordKey(apiKey);
    if (await this.hot.setIfAbsent(key, JSON.stringify(record), { ttlMs: this.options.recordTtlMs }))
      return record;
    // A writer (or another loader) got there first: theirs is at least as new.
    const text = await this.hot.get(key);
    return text === undefined ? record : parseRecord(text);
  }

  /** One database load per key at a time, however many requests wait for it. */
  private load(apiKey: string): Promise<ResolvedApiKey | undefined> {
    let pending = this.loads.get(apiKey);
    if (!pending) {
      pending = this.loadFromDatabase(apiKey).finally(() => this.loads.delete(apiKey));
      this.loads.set(apiKey, pending);
    }
    return pending;
  }

  private async loadFromDatabase(apiKey: string): Promise<ResolvedApiKey | undefined> {
    const entity = await this.apiKeys.findByApiKey(apiKey, this.chain.name);
    if (!entity) return undefined;
    const user = await this.users.findById(entity.userId);
    if (!user) return undefined;
    const record = recordOf(entity, user.address);
    let secret = this.cachedSecret(apiKey, entity.id);
    if (!secret) {
      // The api_key is the ciphertext's context: a ciphertext copied to another row does not decrypt.
      secret = new ApiKeySecret(decryptSecret(entity.secretCiphertext, this.auth.masterKeys, apiKey));
      this.putSecret(apiKey, entity.id, secret);
    }
    return { record, secret };
  }

  private cachedSecret(apiKey: string, id: string): ApiKeySecret | undefined {
    const hit = this.secrets.get(apiKey);
    if (!hit || hit.id !== id) return undefined;
    // Most recently used last: the Map's order is the LRU order.
    this.secrets.delete(apiKey);
    this.secrets.set(apiKey, hit);
    return hit.secret;
  }

  private putSecret(apiKey: string, id: string, secret: ApiKeySecret): void {
    this.secrets.delete(apiKey);
    this.secrets.set(apiKey, { id, secret });
    while (this.secrets.size > this.options.secretCacheSize)
      this.secrets.delete(this.secrets.keys().next().value!);
  }
}

function parseRecord(text: string): ApiKeyRecord | undefined {
  const value = JSON.parse(text) as ApiKeyRecord | { deleted: true };
  return 'deleted' in value ? undefined : deepFreeze(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
