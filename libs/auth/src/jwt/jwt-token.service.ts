import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { NativeError } from '@perp/contracts';
import { DEFAULT_JWT_TTL_SECONDS } from '../config/auth-config';
import { AUTH_OPTIONS, JWT_ALGORITHM, type AuthModuleOptions, type AuthUser } from './auth-options';

const SUBJECT = /^0x[0-9a-f]{40}$/;

/** Claims of a login token; `sub` is the lowercase wallet address. */
export interface LoginTokenClaims {
  sub: string;
  iat: number;
  exp: number;
}

/** The JwtService this library signs and verifies with: HS256 only, expiry always set. */
export function createJwtService(options: AuthModuleOptions): JwtService {
  if (options.jwtSecret.length < 32) throw new Error('JWT secret must be at least 32 characters');
  return new JwtService({
    secret: options.jwtSecret,
    signOptions: { algorithm: JWT_ALGORITHM, expiresIn: options.jwtTtlSeconds ?? DEFAULT_JWT_TTL_SECONDS },
    verifyOptions: { algorithms: [JWT_ALGORITHM] },
  });
}

/** Why a token was refused, in words a client can act on; never the token itself. */
export function invalidTokenMessage(reason: unknown): string {
  const name = (reason as Error | undefined)?.name;
  const message = (reason as Error | undefined)?.message;
  if (name === 'TokenExpiredError') return 'Token expired.';
  if (message === 'No auth token') return 'Missing bearer token.';
  return 'Invalid token.';
}

/** The claims' user, or undefined when the subject is not a lowercase address. */
export function userFromClaims(claims: unknown): AuthUser | undefined {
  const sub = (claims as { sub?: unknown } | null)?.sub;
  return typeof sub === 'string' && SUBJECT.test(sub) ? { address: sub } : undefined;
}

/** Issues login tokens (POST /api/v1/auth/login) and verifies them outside HTTP (e.g. WebSocket). */
@Injectable()
export class JwtTokenService {
  private readonly jwt: JwtService;

  constructor(@Inject(AUTH_OPTIONS) options: AuthModuleOptions) {
    this.jwt = createJwtService(options);
  }

  /** A token for a verified wallet address; `expiresAt` in ms. */
  issue(address: string): { token: string; expiresAt: number } {
    const sub = address.toLowerCase();
    if (!SUBJECT.test(sub)) throw new Error('JWT subject must be a wallet address');
    const token = this.jwt.sign({}, { subject: sub });
    const { exp } = this.jwt.decode<LoginTokenClaims>(token);
    return { token, expiresAt: exp * 1000 };
  }

  /** The caller of a token; any failure is 401 INVALID_TOKEN. */
  verify(token: string | undefined): AuthUser {
    if (!token) throw new NativeError('INVALID_TOKEN', invalidTokenMessage(new Error('No auth token')));
    let claims: unknown;
    try {
      claims = this.jwt.verify(token);
    } catch (e) {
      throw new NativeError('INVALID_TOKEN', invalidTokenMessage(e));
    }
    const user = userFromClaims(claims);
    if (!user) throw new NativeError('INVALID_TOKEN', invalidTokenMessage(undefined));
    return user;
  }
}
