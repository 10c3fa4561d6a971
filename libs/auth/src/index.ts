// FAPI request signing
export * from './signing/signed-request';
export * from './signing/api-key-access';
// Client IP and API-key IP whitelists
export * from './ip/ip-list';
export * from './ip/client-ip';
// API keys and their secrets at rest
export * from './secrets/api-keys';
export * from './secrets/secret-cipher';
export * from './secrets/key-file';
export * from './config/auth-config';
// EIP-712 wallet login
export * from './login/login-typed-data';
export * from './login/nonce-store';
export * from './login/login-verifier';
// JWT for the native API (Nest)
export * from './jwt/auth-options';
export * from './jwt/jwt-token.service';
export * from './jwt/jwt.strategy';
export * from './jwt/jwt-auth.guard';
export * from './jwt/auth.module';
