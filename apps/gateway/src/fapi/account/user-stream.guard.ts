import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { checkApiKeyAccess, clientIp, type IpList, isApiKeyFormat } from '@perp/auth';
import type { FastifyRequest } from 'fastify';
import { ApiKeyCache, LastUsedRecorder, TRUSTED_PROXY_LIST } from '../../access';

/**
 * Binance's USER_STREAM security type (the listenKey endpoints): the X-MBX-APIKEY header alone,
 * no timestamp or signature, which is what ccxt, `binance` and the official connector send. Key,
 * status and IP whitelist are checked as for signed requests (same errors, same envelope); a
 * timestamp or signature sent anyway is ignored. Sets `request.fapiCaller`, so `@Caller()` works.
 */
@Injectable()
export class UserStreamGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeyCache,
    private readonly lastUsed: LastUsedRecorder,
    @Inject(TRUSTED_PROXY_LIST) private readonly trustedProxies: IpList,
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
    const record = key!.record;
    request.fapiCaller = { userId: record.userId, address: record.address, apiKeyId: record.id };
    this.lastUsed.record(record.id);
    return true;
  }
}
