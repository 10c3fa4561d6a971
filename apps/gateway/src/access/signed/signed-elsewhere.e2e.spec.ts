import {
  type CallHandler,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type NestInterceptor,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { type RawParams, scalar, userIdForAddress } from '@perp/contracts';
import { createTestSchema, type TestSchema } from '@perp/persistence';
import { Wallet } from 'ethers';
import type { FastifyReply } from 'fastify';
import { type AccessApp, authError, createKey, json, login, signed, startAccessApp } from '../access.harness';
import { Caller, type FapiCaller, FapiParams, Signed, signedEndpointOf } from './signed';

/** What a rate limiter would do: read the endpoint's Type and Weight for this request. */
@Injectable()
class WeightHeader implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}
  intercept(context: ExecutionContext, next: CallHandler) {
    const endpoint = signedEndpointOf(this.reflector, context);
    if (endpoint)
      void context
        .switchToHttp()
        .getResponse<FastifyReply>()
        .header('x-test-weight', `${endpoint.type}:${endpoint.weightNow}`);
    return next.handle();
  }
}

@Controller()
@UseInterceptors(WeightHeader)
class ElsewhereController {
  @Get('fapi/v1/probe')
  @Signed({ type: 'USER_DATA', weight: (p: RawParams) => (scalar(p, 'symbol') ? 1 : 40) })
  probe(@Caller() caller: FapiCaller, @FapiParams() params: RawParams) {
    return { caller, symbol: scalar(params, 'symbol') ?? null };
  }

  @Get('api/v1/probe')
  @UseGuards(JwtAuthGuard)
  me(@CurrentUser() user: AuthUser) {
    return user;
  }
}

/** A module of its own that imports nothing: ApiAccessModule is global. */
@Module({ controllers: [ElsewhereController], providers: [WeightHeader] })
class ElsewhereModule {}

describe('@Signed() and JwtAuthGuard on controllers of other modules', () => {
  let schema: TestSchema;
  let a: AccessApp;

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await startAccessApp({ schema: schema.schema, imports: [ElsewhereModule] });
  });

  afterAll(async () => {
    await a?.close();
    await schema?.drop();
  });

  it('puts the caller on the request and records Type and Weight', async () => {
    const wallet = Wallet.createRandom();
    const token = await login(a.url, wallet);
    const key = await createKey(a.url, token);
    const address = wallet.address.toLowerCase();

    const all = await signed(a.url, '/fapi/v1/probe', key);
    expect([all.status, all.body, all.headers['x-test-weight']]).toEqual([
      200,
      { caller: { userId: userIdForAddress(address), address, apiKeyId: key.id }, symbol: null },
      'USER_DATA:40',
    ]);
    const one = await signed(a.url, '/fapi/v1/probe', key, { params: { symbol: 'BTCUSDT' } });
    expect([one.body.symbol, one.headers['x-test-weight']]).toEqual(['BTCUSDT', 'USER_DATA:1']);

    const refused = await signed(a.url, '/fapi/v1/probe', key, { secret: '0'.repeat(64) });
    expect([refused.status, refused.body]).toEqual([401, authError('SIGNATURE_INVALID')]);

    const me = await json(`${a.url}/api/v1/probe`, 'GET', undefined, token);
    expect([me.status, me.body]).toEqual([200, { address }]);
  });
});
