import { Module } from '@nestjs/common';
import { type AuthSecrets, checkAuthEnv, loadAuthSecrets } from '@perp/auth';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

/** The resolved {@link AuthSecrets}: JWT key and the master keyring of API-key secrets. */
export const AUTH_SECRETS = Symbol('AUTH_SECRETS');

/**
 * Reads JWT_SECRET, JWT_TTL_SECONDS and API_KEY_MASTER_KEY(_PREVIOUS) once per process. With the
 * embedded database (no DATABASE_URL) missing secrets are generated into DATA_DIR, next to it; with
 * a real database there may be several gateway replicas, which must share them, so they are required.
 */
export function authSecretsFor(config: AppConfig): Promise<AuthSecrets> {
  return loadAuthSecrets(authEnvOf(config), authOptionsOf(config));
}

/**
 * The auth variables' check alone (no key file read or written), for an app's entry point: a bad
 * value then stops the process through bootstrap's message, not from inside Nest's module setup.
 */
export function checkAuthSecrets(config: AppConfig): void {
  checkAuthEnv(authEnvOf(config), authOptionsOf(config));
}

const authEnvOf = (config: AppConfig) => ({
  JWT_SECRET: config.JWT_SECRET,
  JWT_TTL_SECONDS: config.JWT_TTL_SECONDS,
  API_KEY_MASTER_KEY: config.API_KEY_MASTER_KEY,
  API_KEY_MASTER_KEY_PREVIOUS: config.API_KEY_MASTER_KEY_PREVIOUS,
});

const authOptionsOf = (config: AppConfig) => ({ dataDir: config.DATABASE_URL ? undefined : config.dataDir });

/** One instance per process (a static module), so the secrets are loaded, or generated, once. */
@Module({
  providers: [{ provide: AUTH_SECRETS, inject: [APP_CONFIG], useFactory: authSecretsFor }],
  exports: [AUTH_SECRETS],
})
export class AuthSecretsModule {}
