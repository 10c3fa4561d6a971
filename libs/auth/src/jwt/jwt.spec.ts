import 'reflect-metadata';
import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Wallet } from 'ethers';
import { NativeError } from '@perp/contracts';
import { ErrorEnvelopeFilter } from '@perp/runtime';
import { DEFAULT_JWT_TTL_SECONDS } from '../config/auth-config';
import { AUTH_OPTIONS, type AuthModuleOptions, type AuthUser } from './auth-options';
import { AuthModule } from './auth.module';
import { CurrentUser, JwtAuthGuard } from './jwt-auth.guard';
import { JwtTokenService } from './jwt-token.service';

const SECRET = 's3cret-'.repeat(6);
const ADDRESS = Wallet.createRandom().address.toLowerCase();

function b64url(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

/** Tokens an attacker or a misconfigured client could send. */
function badTokens(good: string): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const [header, , signature] = good.split('.');
  return {
    malformed: 'not.a.jwt',
    garbage: 'abc',
    expired: new JwtService({ secret: SECRET }).sign({ sub: ADDRESS, iat: now - 100, exp: now - 10 }),
    'other secret': new JwtService({ secret: 'x'.repeat(40) }).sign({ sub: ADDRESS }),
    'HS512 with the right secret': new JwtService({ secret: SECRET }).sign(
      { sub: ADDRESS },
      { algorithm: 'HS512' },
    ),
    'alg none': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: ADDRESS, iat: now, exp: now + 600 })}.`,
    'alg none with a signature': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: ADDRESS })}.${signature}`,
    'payload swapped, signature kept': `${header}.${b64url({ sub: '0x' + '1'.repeat(40), iat: now, exp: now + 600 })}.${signature}`,
    'subject not an address': new JwtService({ secret: SECRET }).sign({ sub: 'admin' }),
    'no subject': new JwtService({ secret: SECRET }).sign({ role: 'admin' }),
  };
}

describe('JwtTokenService', () => {
  const tokens = new JwtTokenService({ jwtSecret: SECRET, jwtTtlSeconds: 3600 });

  it('issues an HS256 token whose subject is the lowercase address and verifies it', () => {
    const checksummed = Wallet.createRandom().address;
    const { token, expiresAt } = tokens.issue(checksummed);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p!, 'base64url').toString()));
    expect(header.alg).toBe('HS256');
    expect(payload.sub).toBe(checksummed.toLowerCase());
    expect(payload.exp - payload.iat).toBe(3600);
    expect(expiresAt).toBe(payload.exp * 1000);
    expect(tokens.verify(token)).toEqual({ address: checksummed.toLowerCase() });
  });

  it('defaults to a 24 h lifetime', () => {
    const { token } = new JwtTokenService({ jwtSecret: SECRET }).issue(ADDRESS);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(payload.exp - payload.iat).toBe(DEFAULT_JWT_TTL_SECONDS);
    expect(DEFAULT_JWT_TTL_SECONDS).toBe(86_400);
  });

  it('refuses every bad token with INVALID_TOKEN', () => {
    for (const [why, token] of Object.entries({ ...badTokens(tokens.issue(ADDRESS).token), empty: '' })) {
      let err: unknown;
      try {
        tokens.verify(token);
      } catch (e) {
        err = e;
      }
      expect([why, err instanceof NativeError && err.code, (err as NativeError)?.status]).toEqual([
        why,
        'INVALID_TOKEN',
        401,
      ]);
    }
  });

  it('refuses to sign for a subject that is not an address, or with a short secret', () => {
    expect(() => tokens.issue('admin')).toThrow('wallet address');
    expect(() => new JwtTokenService({ jwtSecret: 'short' })).toThrow('at least 32');
  });
});

@Controller('api/v1')
class ProbeController {
  @Get('me')
  @UseGuards(JwtAuthGuard)
  me(@CurrentUser() user: AuthUser): AuthUser {
    return user;
  }

  @Get('public')
  open(): { ok: true } {
    return { ok: true };
  }
}

describe('JwtAuthGuard over HTTP (Nest + Fastify)', () => {
  let app: NestFastifyApplication;
  let tokens: JwtTokenService;

  beforeAll(async () => {
    @Module({
      imports: [
        AuthModule.forRootAsync({
          useFactory: async () => ({ jwtSecret: SECRET, jwtTtlSeconds: 600 }),
        }),
      ],
      controllers: [ProbeController],
    })
    class TestModule {}
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), {
      logger: false,
    });
    app.useGlobalFilters(new ErrorEnvelopeFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    tokens = app.get(JwtTokenService);
  });

  afterAll(async () => {
    await app.close();
  });

  const get = (authorization?: string) =>
    app.inject({ method: 'GET', url: '/api/v1/me', headers: authorization ? { authorization } : {} });

  it('resolves the async options with the default lifetime filled in', () => {
    expect(app.get<AuthModuleOptions>(AUTH_OPTIONS)).toEqual({ jwtSecret: SECRET, jwtTtlSeconds: 600 });
  });

  it('lets a valid bearer token through and exposes the caller', async () => {
    const res = await get(`Bearer ${tokens.issue(ADDRESS).token}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ address: ADDRESS });
  });

  it('leaves unguarded routes alone', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/v1/public' })).statusCode).toBe(200);
  });

  it('answers a missing token with 401 INVALID_TOKEN in the native envelope', async () => {
    const res = await get();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Missing bearer token.', code: 'INVALID_TOKEN' });
  });

  it('answers an expired token with 401 INVALID_TOKEN saying so', async () => {
    const res = await get(`Bearer ${badTokens(tokens.issue(ADDRESS).token).expired}`);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Token expired.', code: 'INVALID_TOKEN' });
  });

  it('answers every other bad token or header with 401 INVALID_TOKEN', async () => {
    const good = tokens.issue(ADDRESS).token;
    const headers = [
      ...Object.values(badTokens(good)).map((t) => `Bearer ${t}`),
      `Basic ${good}`,
      good,
      'Bearer',
      `Bearer ${good}x`,
    ];
    for (const h of headers) {
      const res = await get(h);
      expect([h, res.statusCode, res.json()]).toEqual([
        h,
        401,
        { error: expect.any(String), code: 'INVALID_TOKEN' },
      ]);
    }
  });
});
