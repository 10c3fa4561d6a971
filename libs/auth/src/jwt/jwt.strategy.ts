import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { NativeError } from '@perp/contracts';
import {
  AUTH_OPTIONS,
  JWT_ALGORITHM,
  JWT_STRATEGY,
  type AuthModuleOptions,
  type AuthUser,
} from './auth-options';
import { invalidTokenMessage, userFromClaims } from './jwt-token.service';

/**
 * Reads `Authorization: Bearer <JWT>`, checks signature (HS256 only) and expiry. Passport keeps
 * strategies in one process-wide registry by name, so one process serves one JWT secret.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(AUTH_OPTIONS) options: AuthModuleOptions) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: options.jwtSecret,
      algorithms: [JWT_ALGORITHM],
      ignoreExpiration: false,
    });
  }

  validate(claims: unknown): AuthUser {
    const user = userFromClaims(claims);
    if (!user) throw new NativeError('INVALID_TOKEN', invalidTokenMessage(undefined));
    return user;
  }
}
