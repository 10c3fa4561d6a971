/** Injection token of the resolved {@link AuthModuleOptions}. */
export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

/** The passport strategy name; the guard and the strategy meet through it. */
export const JWT_STRATEGY = 'perp-jwt';

/** The only algorithm signed and accepted: anything else (`none`, RS256, HS512) is INVALID_TOKEN. */
export const JWT_ALGORITHM = 'HS256';

export interface AuthModuleOptions {
  /** HS256 key (JWT_SECRET, or the generated one in embedded mode); at least 32 characters. */
  jwtSecret: string;
  /** Token lifetime in seconds; default DEFAULT_JWT_TTL_SECONDS (24 h). */
  jwtTtlSeconds?: number;
  /** Register the module globally so any module can use the guard and the token service. */
  global?: boolean;
}

/** The authenticated caller, put on `request.user` by the guard. */
export interface AuthUser {
  /** Lowercase 0x address: the JWT subject. */
  address: string;
}
