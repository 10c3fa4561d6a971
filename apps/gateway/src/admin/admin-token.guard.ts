import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { NativeError } from '@perp/contracts';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Operators only: `Authorization: Bearer <ADMIN_TOKEN>`. API keys and user JWTs never pass. Compared
 * as fixed-length digests in constant time; with no ADMIN_TOKEN configured every call is refused.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.ADMIN_TOKEN ? digest(config.ADMIN_TOKEN) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (!this.expected || token === undefined || !timingSafeEqual(digest(token), this.expected))
      throw new NativeError('INVALID_TOKEN', 'admin bearer token required', 'flat', 401);
    return true;
  }
}
