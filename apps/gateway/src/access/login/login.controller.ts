import { Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { JwtTokenService, type LoginTypedData, LoginVerifier } from '@perp/auth';
import { UserRepository } from '@perp/persistence';
import { z } from 'zod';
import { ApiDoc } from '../../openapi/api-doc';
import { LoginTypedData as TypedDataBody, Token } from '../../openapi/native-responses';
import { NativeBody } from '../../openapi/route-inputs';
import type { NativeFields } from '../../openapi/native-fields';
import { LoginRateLimitGuard } from './login-rate-limit.guard';

// The verifier checks these (address, signature format, expiry) with the native codes; the
// schemas only take the values as sent.
const sent = (type: 'string' | 'integer', description: string) => z.unknown().meta({ type, description });
const LOGIN_BODY = {
  address: sent('string', 'Wallet address, 0x-prefixed hex'),
  signature: sent('string', '0x-prefixed hex of the EIP-712 signature of the typed data'),
  timestamp: sent('integer', 'The `timestamp` of the typed data message (ms)'),
};
const LOGIN_ERRORS = ['INVALID_ADDRESS', 'RATE_LIMITED'] as const;

/** The provider of the process's {@link LoginVerifier} (chain id of the deployment, shared nonce store). */
export const LOGIN_VERIFIER = Symbol('LOGIN_VERIFIER');

/**
 * Wallet login (spec "Native: login"). The user row is created by a successful login, not by the
 * nonce request: asking for a nonce proves nothing, so it must not let anyone fill the users table.
 * USER_NOT_FOUND therefore means "no pending nonce", as the spec's rule reads. Both endpoints are
 * rate limited per client IP (LoginRateLimitGuard: 429 RATE_LIMITED).
 */
@Controller('api/v1/auth')
@UseGuards(LoginRateLimitGuard)
export class LoginController {
  constructor(
    @Inject(LOGIN_VERIFIER) private readonly verifier: LoginVerifier,
    private readonly tokens: JwtTokenService,
    private readonly users: UserRepository,
  ) {}

  @Get('nonce/:address')
  @ApiDoc({
    tag: 'auth',
    summary: 'EIP-712 typed data to sign for login',
    path: { address: z.string().meta({ description: 'Wallet address, 0x-prefixed hex' }) },
    response: TypedDataBody,
    errors: LOGIN_ERRORS,
  })
  async nonce(@Param('address') address: string): Promise<{ typed_data: LoginTypedData }> {
    return { typed_data: await this.verifier.issueNonce(address) };
  }

  @Post('login')
  @HttpCode(200)
  @ApiDoc({
    tag: 'auth',
    summary: 'Exchange a signed nonce for a JWT',
    response: Token,
    errors: [
      ...LOGIN_ERRORS,
      'TIMESTAMP_EXPIRED',
      'SIGNATURE_FORMAT_INVALID',
      'SIGNATURE_INVALID',
      'USER_NOT_FOUND',
    ],
  })
  async login(@NativeBody(LOGIN_BODY) body: NativeFields<typeof LOGIN_BODY>): Promise<{ token: string }> {
    const { address } = await this.verifier.verify({
      address: body.values.address as string,
      signature: body.values.signature as string,
      timestamp: body.values.timestamp as number,
    });
    await this.users.findOrCreate(address);
    return { token: this.tokens.issue(address).token };
  }
}
