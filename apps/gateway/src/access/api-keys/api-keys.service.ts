import { Inject, Injectable } from '@nestjs/common';
import { type AuthSecrets, encryptSecret, generateApiKey } from '@perp/auth';
import { NativeError, userIdForAddress } from '@perp/contracts';
import type { Chain } from '@perp/domain';
import {
  ApiKeyLimitReachedError,
  ApiKeyRepository,
  MAX_API_KEYS_PER_USER,
  UserRepository,
} from '@perp/persistence';
import { CHAIN } from '@perp/runtime';
import { AUTH_SECRETS } from '../auth-secrets';
import { ApiKeyCache, recordOf } from '../signed/api-key-cache';
import { LastUsedRecorder } from '../signed/last-used';
import {
  API_KEY_PERMISSIONS,
  apiKeyView,
  type ApiKeyView,
  type CreatedApiKeyView,
  isUuid,
  parseCreateBody,
  parseUpdateBody,
} from './api-key-body';

function notFound(): NativeError {
  return new NativeError('NOT_FOUND', 'API key not found.');
}

/**
 * The native API-key endpoints' logic: every change goes to the database first, then to the
 * hot-store record the signed-request guard reads on every replica.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly apiKeys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly cache: ApiKeyCache,
    private readonly lastUsed: LastUsedRecorder,
    @Inject(AUTH_SECRETS) private readonly auth: AuthSecrets,
    @Inject(CHAIN) private readonly chain: Chain,
  ) {}

  async create(address: string, rawBody: unknown): Promise<CreatedApiKeyView> {
    const input = parseCreateBody(rawBody);
    const { user } = await this.users.findOrCreate(address);
    const { apiKey, secretKey } = generateApiKey();
    let entity;
    try {
      entity = await this.apiKeys.create({
        userId: user.id,
        chain: this.chain.name,
        apiKey,
        // The api_key is the context: the ciphertext decrypts on this row only.
        secretCiphertext: encryptSecret(secretKey, this.auth.masterKeys, apiKey),
        label: input.label,
        ipWhitelist: input.ipWhitelist,
      });
    } catch (e) {
      if (e instanceof ApiKeyLimitReachedError)
        throw new NativeError('LIMIT_REACHED', `At most ${MAX_API_KEYS_PER_USER} API keys per account.`);
      throw e;
    }
    await this.cache.store(apiKey, recordOf(entity, user.address));
    this.cache.rememberSecret(apiKey, entity.id, secretKey);
    return {
      id: entity.id,
      api_key: entity.apiKey,
      secret_key: secretKey,
      label: entity.label,
      ip_whitelist: entity.ipWhitelist,
      permissions: API_KEY_PERMISSIONS,
      created_at: entity.createdAt.toISOString(),
      status: entity.status,
    };
  }

  async list(address: string): Promise<ApiKeyView[]> {
    const entities = await this.apiKeys.listByUser(userIdForAddress(address), this.chain.name);
    const recent = await this.lastUsed.recent(entities.map((e) => e.id));
    return entities.map((e) => apiKeyView(e, recent.get(e.id)));
  }

  async update(address: string, id: string, rawBody: unknown): Promise<ApiKeyView> {
    const input = parseUpdateBody(rawBody);
    if (!isUuid(id)) throw notFound();
    const entity = await this.apiKeys.update(userIdForAddress(address), id, this.chain.name, input);
    if (!entity) throw notFound();
    await this.cache.store(entity.apiKey, recordOf(entity, address));
    const recent = await this.lastUsed.recent([entity.id]);
    return apiKeyView(entity, recent.get(entity.id));
  }

  async remove(address: string, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound();
    const userId = userIdForAddress(address);
    const entity = await this.apiKeys.findForUser(userId, id, this.chain.name);
    if (!entity || !(await this.apiKeys.delete(userId, id, this.chain.name))) throw notFound();
    await this.cache.revoke(entity.apiKey);
    await this.lastUsed.forget(entity.id);
  }
}
