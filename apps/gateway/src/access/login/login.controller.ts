import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { JwtTokenService, type LoginTypedData, LoginVerifier } from '@perp/auth';
import { UserRepository } from '@perp/persistence';
import { objectBody } from '../object-body';
import { LoginRateLimitGuard } from './login-rate-limit.guard';

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
  async nonce(@Param('address') address: string): Promise<{ typed_data: LoginTypedData }> {
    return { typed_data: await this.verifier.issueNonce(address) };
  }

  @Post('login')
  @HttpCode(200)
  async login(@Body() raw: unknown): Promise<{ token: string }> {
    const body = objectBody(raw);
    const { address } = await this.verifier.verify({
      address: body.address as string,
      signature: body.signature as string,
      timestamp: body.timestamp as number,
    });
    await this.users.findOrCreate(address);
    return { token: this.tokens.issue(address).token };
  }
}
