import { join } from 'node:path';
import { Body, Controller, type INestApplication, Module, Post, Req } from '@nestjs/common';
import { BODY_LIMIT_BYTES, createHttpApp, loadAppConfig, RuntimeModule } from '@perp/runtime';
import type { FastifyRequest } from 'fastify';
import { http, REPO_ROOT } from './access.harness';

// The body parsers of createHttpApp (libs/runtime), which signed requests depend on.
@Controller()
class EchoController {
  @Post(['fapi/v1/echo', 'api/v1/echo'])
  echo(@Req() request: FastifyRequest, @Body() body: unknown) {
    return {
      body,
      proto: body !== null && typeof body === 'object' ? Object.getPrototypeOf(body) === null : undefined,
      raw: request.rawBody?.toString('utf8') ?? null,
    };
  }
}

describe('createHttpApp body parsers', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const config = loadAppConfig({ DEPLOY_DIR: join(REPO_ROOT, 'deploy'), LOG_LEVEL: 'fatal' });
    @Module({ imports: [RuntimeModule.forRoot(config)], controllers: [EchoController] })
    class EchoApp {}
    app = await createHttpApp(EchoApp, config, 'parsers-test');
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(() => app.close());

  const post = (path: string, contentType: string | undefined, body: string) =>
    http(`${url}${path}`, {
      method: 'POST',
      headers: contentType ? { 'content-type': contentType } : {},
      body,
    });

  it('keeps the raw JSON bytes next to the parsed body', async () => {
    const raw = '{ "symbol":"BTCUSDT",  "quantity":"0.010", "n": 1.50 }';
    const res = await post('/fapi/v1/echo', 'application/json; charset=utf-8', raw);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ body: { symbol: 'BTCUSDT', quantity: '0.010', n: 1.5 }, proto: false, raw });
  });

  it('treats an empty or blank JSON body as {}', async () => {
    for (const raw of ['', '  \n']) {
      const res = await post('/fapi/v1/echo', 'application/json', raw);
      expect([res.status, res.body]).toEqual([201, { body: {}, proto: false, raw }]);
    }
  });

  it('parses form bodies with URLSearchParams: repeated keys become arrays, no prototype', async () => {
    const raw = 'symbol=BTCUSDT&id=1&id=2&id=3&note=a%20b+c&__proto__=x&empty=';
    const res = await post('/fapi/v1/echo', 'application/x-www-form-urlencoded', raw);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      body: { symbol: 'BTCUSDT', id: ['1', '2', '3'], note: 'a b c', ['__proto__']: 'x', empty: '' },
      proto: true,
      raw,
    });
  });

  it('answers malformed JSON with -1102 on FAPI and INVALID_REQUEST on the native API', async () => {
    const fapi = await post('/fapi/v1/echo', 'application/json', '{bad');
    expect([fapi.status, fapi.body]).toEqual([400, { code: -1102, msg: 'Malformed JSON body.' }]);
    const native = await post('/api/v1/echo', 'application/json', '{bad');
    expect([native.status, native.body]).toEqual([
      400,
      { error: 'Malformed JSON body.', code: 'INVALID_REQUEST' },
    ]);
  });

  it('refuses prototype poisoning in JSON', async () => {
    const res = await post('/fapi/v1/echo', 'application/json', '{"__proto__":{"admin":true}}');
    expect([res.status, res.body.code]).toEqual([400, -1102]);
  });

  it('keeps the body limit for both parsers', async () => {
    const big = 'x'.repeat(BODY_LIMIT_BYTES + 1);
    for (const [type, body] of [
      ['application/json', JSON.stringify({ big })],
      ['application/x-www-form-urlencoded', `big=${big}`],
    ]) {
      const res = await post('/fapi/v1/echo', type, body);
      expect([type, res.status, res.body]).toEqual([
        type,
        413,
        { code: -1102, msg: 'Request body too large.' },
      ]);
    }
  });

  it('leaves a POST without a body alone', async () => {
    const res = await post('/fapi/v1/echo', undefined, '');
    expect([res.status, res.body.raw]).toEqual([201, null]);
  });
});
