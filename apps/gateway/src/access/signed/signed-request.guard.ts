import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import {
  checkApiKeyAccess,
  clientIp,
  type IpList,
  isApiKeyFormat,
  rawQueryOf,
  verifySignedRequest,
} from '@perp/auth';
import type { FastifyRequest } from 'fastify';
import { TRUSTED_PROXY_LIST } from '../access-options';
import { SIGNED_REQUEST_ADMISSION, type SignedRequestAdmission } from './admission';
import { ApiKeyCache, type ResolvedApiKey } from './api-key-cache';
import type { FapiCaller } from './fapi-caller';
import { LastUsedRecorder } from './last-used';

/**
 * The spec's FAPI authentication, in its order: unknown key (or none) → INVALID_API_KEY; disabled →
 * API_KEY_DISABLED; client IP (TRUSTED_PROXIES decide whose X-Forwarded-For counts) outside a
 * non-empty whitelist → IP_NOT_ALLOWED; bad signature or timestamp → SIGNATURE_INVALID; correctly
 * signed but outside ±60 s → -1021. The signature covers the raw query and the raw body bytes.
 * Then the admission check, if one is provided (the account's order count): it may still refuse.
 * On success the caller is on `request.fapiCaller` and the key's use is recorded.
 */
@Injectable()
export class SignedRequestGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyCache,
    private readonly lastUsed: LastUsedRecorder,
    @Inject(TRUSTED_PROXY_LIST) private readonly trustedProxies: IpList,
    @Optional() @Inject(SIGNED_REQUEST_ADMISSION) private readonly admission?: SignedRequestAdmission,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers['x-mbx-apikey'];
    const key = isApiKeyFormat(header) ? await this.keys.resolve(header) : undefined;
    const ip = clientIp(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      this.trustedProxies,
    );
    checkApiKeyAccess(key?.record, ip); // no key → INVALID_API_KEY
    const { record, secret } = key as ResolvedApiKey;
    verifySignedRequest(
      { query: rawQueryOf(request.url), body: request.rawBody, contentType: request.headers['content-type'] },
      secret.reveal(),
    );
    const caller: FapiCaller = { userId: record.userId, address: record.address, apiKeyId: record.id };
    // A request refused here changes nothing: no caller on the request, no recorded use.
    await this.admission?.admit(context, caller);
    request.fapiCaller = caller;
    this.lastUsed.record(record.id);
    return true;
  }
}
