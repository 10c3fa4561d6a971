import { createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { NativeError } from '@perp/contracts';
import { JWT_STRATEGY, type AuthUser } from './auth-options';
import { invalidTokenMessage } from './jwt-token.service';

/**
 * Guards native endpoints that need a login. Every failure — no header, not Bearer, malformed,
 * expired, signed with another secret or another algorithm (`alg: none` included) — is 401
 * INVALID_TOKEN in the native envelope, never passport's own 401 body.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  override handleRequest<TUser = AuthUser>(err: unknown, user: unknown, info: unknown): TUser {
    if (err instanceof NativeError) throw err;
    if (err || !user) throw new NativeError('INVALID_TOKEN', invalidTokenMessage(err ?? info));
    return user as TUser;
  }
}

/** The caller put on the request by {@link JwtAuthGuard}: `@CurrentUser() user: AuthUser`. */
export const CurrentUser = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthUser => ctx.switchToHttp().getRequest<{ user: AuthUser }>().user,
);
