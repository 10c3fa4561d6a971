import { type DynamicModule, Module } from '@nestjs/common';
import {
  AuthModule,
  type AuthSecrets,
  InMemoryLoginNonceStore,
  LoginVerifier,
  parseTrustedProxies,
} from '@perp/auth';
import { HOT_STORE, type HotStore } from '@perp/cache';
import type { Chain } from '@perp/domain';
import { APP_CONFIG, type AppConfig, CHAIN } from '@perp/runtime';
import {
  ACCESS_OPTIONS,
  type ApiAccessOptions,
  DEFAULT_ACCESS_OPTIONS,
  TRUSTED_PROXY_LIST,
} from './access-options';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AUTH_SECRETS, AuthSecretsModule } from './auth-secrets';
import { FapiAccountSettingsController } from './fapi-account-settings.controller';
import { HotStoreLoginNonceStore } from './login/hot-store-nonce-store';
import { LoginRateLimitGuard } from './login/login-rate-limit.guard';
import { LOGIN_VERIFIER, LoginController } from './login/login.controller';
import { ApiKeyCache } from './signed/api-key-cache';
import { LastUsedRecorder } from './signed/last-used';
import { SignedRequestGuard } from './signed/signed-request.guard';

/**
 * Who may call what: wallet login and JWTs for the native API, API-key management, and the guard
 * of signed FAPI endpoints (`@Signed()`), with the first signed endpoints (account settings).
 *
 * Needs from the root module: RuntimeModule (APP_CONFIG, CHAIN, MarketRegistry), PersistenceModule
 * (UserRepository, ApiKeyRepository) and CacheModule (HOT_STORE). Global, so any FAPI controller can
 * use `@Signed()`, and JwtAuthGuard/JwtTokenService (re-exported AuthModule) without importing it.
 */
@Module({})
export class ApiAccessModule {
  static forRoot(options: ApiAccessOptions = {}): DynamicModule {
    return {
      module: ApiAccessModule,
      global: true,
      imports: [
        AuthSecretsModule,
        AuthModule.forRootAsync({
          imports: [AuthSecretsModule],
          inject: [AUTH_SECRETS],
          useFactory: (s: AuthSecrets) => ({ jwtSecret: s.jwtSecret, jwtTtlSeconds: s.jwtTtlSeconds }),
        }),
      ],
      controllers: [LoginController, ApiKeysController, FapiAccountSettingsController],
      providers: [
        { provide: ACCESS_OPTIONS, useValue: { ...DEFAULT_ACCESS_OPTIONS, ...options } },
        {
          provide: TRUSTED_PROXY_LIST,
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => parseTrustedProxies(config.TRUSTED_PROXIES),
        },
        {
          provide: LOGIN_VERIFIER,
          inject: [CHAIN, APP_CONFIG, HOT_STORE],
          // With Redis there may be several replicas: the nonce must be visible to all of them.
          useFactory: (chain: Chain, config: AppConfig, hot: HotStore) =>
            new LoginVerifier({
              chainId: chain.chainId,
              store: config.REDIS_URL ? new HotStoreLoginNonceStore(hot) : new InMemoryLoginNonceStore(),
            }),
        },
        ApiKeyCache,
        LastUsedRecorder,
        ApiKeysService,
        SignedRequestGuard,
        LoginRateLimitGuard,
      ],
      exports: [
        AuthModule,
        ApiKeyCache,
        LastUsedRecorder,
        SignedRequestGuard,
        TRUSTED_PROXY_LIST,
        ACCESS_OPTIONS,
      ],
    };
  }
}
