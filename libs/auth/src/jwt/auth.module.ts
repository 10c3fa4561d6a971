import {
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  Module,
  type Provider,
} from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { DEFAULT_JWT_TTL_SECONDS } from '../config/auth-config';
import { AUTH_OPTIONS, type AuthModuleOptions } from './auth-options';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtTokenService } from './jwt-token.service';
import { JwtStrategy } from './jwt.strategy';

export interface AuthModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** E.g. `(config) => loadAuthSecrets(process.env, { dataDir: config.dataDir })`. */
  useFactory: (...deps: never[]) => AuthModuleOptions | Promise<AuthModuleOptions>;
  inject?: InjectionToken[];
  global?: boolean;
}

function withDefaults(options: AuthModuleOptions): AuthModuleOptions {
  return { ...options, jwtTtlSeconds: options.jwtTtlSeconds ?? DEFAULT_JWT_TTL_SECONDS };
}

function moduleWith(optionsProvider: Provider, global: boolean, imports: ModuleMetadata['imports'] = []) {
  return {
    module: AuthModule,
    global,
    imports: [PassportModule, ...imports],
    providers: [optionsProvider, JwtStrategy, JwtAuthGuard, JwtTokenService],
    exports: [AUTH_OPTIONS, PassportModule, JwtAuthGuard, JwtTokenService],
  };
}

/**
 * JWT login tokens for the native API: `@UseGuards(JwtAuthGuard)` on endpoints that need a login,
 * JwtTokenService to issue tokens after LoginVerifier accepted a wallet signature.
 */
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    return moduleWith({ provide: AUTH_OPTIONS, useValue: withDefaults(options) }, options.global ?? false);
  }

  /** For secrets resolved at start (loadAuthSecrets reads or creates files in embedded mode). */
  static forRootAsync(options: AuthModuleAsyncOptions): DynamicModule {
    const provider: Provider = {
      provide: AUTH_OPTIONS,
      useFactory: async (...deps: never[]) => withDefaults(await options.useFactory(...deps)),
      inject: options.inject ?? [],
    };
    return moduleWith(provider, options.global ?? false, options.imports);
  }
}
