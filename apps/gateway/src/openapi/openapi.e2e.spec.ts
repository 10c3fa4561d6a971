import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { REPO_ROOT } from '@perp/testing';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { type Browser, chromium } from 'playwright-core';
import { http } from '../access/access.harness';
import { DOCUMENT_URLS } from './reference-page';
import { type Surface, surfaceOf } from './surfaces';

/** Debian's chromium (deploy/scripts/ensure-services.sh installs it); CHROMIUM_PATH overrides. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Doc = { paths: Record<string, Record<string, unknown>> };
const checkedIn = (s: Surface) =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'openapi', `${s}.json`), 'utf8')) as Doc;

function join2(...parts: string[]): string {
  const path = parts
    .flatMap((p) => p.split('/'))
    .filter((s) => s !== '')
    .join('/');
  return `/${path}`.replace(/:([^/]+)/g, '{$1}');
}

/** Every route the running app's controllers register, as `METHOD /path` (Nest's routing metadata). */
function servedRoutes(ex: InProcessExchange): string[] {
  const out = new Set<string>();
  for (const module of ex.app.get(ModulesContainer).values())
    for (const wrapper of module.controllers.values()) {
      const cls = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!cls) continue;
      const prefixes = [Reflect.getMetadata(PATH_METADATA, cls) as string | string[]].flat();
      const proto = cls.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (method === undefined || paths === undefined) continue;
        for (const prefix of prefixes)
          for (const path of [paths].flat()) out.add(`${RequestMethod[method]} ${join2(prefix ?? '', path)}`);
      }
    }
  return [...out].sort();
}

const documented = (doc: Doc) =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();

describe('API documents served by the gateway', () => {
  let ex: InProcessExchange;
  let browser: Browser;

  beforeAll(async () => {
    ex = await startInProcessExchange();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await ex?.close();
  });

  it('serves both documents (the checked-in files) without a login', async () => {
    for (const s of ['fapi', 'native'] as const) {
      const r = await http(`${ex.url}${DOCUMENT_URLS[s]}`);
      expect([r.status, r.body]).toEqual([200, checkedIn(s)]);
    }
    expect((await http(`${ex.url}/api/v1/openapi.json`)).body).toEqual(checkedIn('native'));
  });

  it('documents every route the app serves, and no route it does not (Nest routes, Fastify router)', () => {
    const served = servedRoutes(ex);
    expect(served.length).toBeGreaterThan(80);
    const docs = [...documented(checkedIn('fapi')), ...documented(checkedIn('native'))].sort();
    expect(served).toEqual(docs);
    const fastify = ex.app.getHttpAdapter().getInstance() as FastifyInstance;
    for (const route of docs) {
      const [method, path] = route.split(' ') as [HTTPMethods, string];
      expect({
        route,
        found: fastify.hasRoute({ method, url: path.replace(/\{([^}]+)\}/g, ':$1') }),
      }).toEqual({
        route,
        found: true,
      });
    }
  });

  it('answers in the documented shapes (public routes, validated against the document)', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const s of ['fapi', 'native'] as const) ajv.addSchema({ ...checkedIn(s), $id: `${s}.json` });
    const cases: [Surface, string, string][] = [
      ['fapi', '/fapi/v1/time', '/fapi/v1/time'],
      ['fapi', '/fapi/v1/depth', '/fapi/v1/depth?symbol=BTCUSDT&limit=5'],
      ['fapi', '/fapi/v1/klines', '/fapi/v1/klines?symbol=BTCUSDT&interval=1m'],
      ['fapi', '/fapi/v1/ticker/24hr', '/fapi/v1/ticker/24hr'],
      ['fapi', '/fapi/v1/ticker/price', '/fapi/v1/ticker/price?symbol=BTCUSDT'],
      ['fapi', '/fapi/v1/ticker/bookTicker', '/fapi/v1/ticker/bookTicker'],
      ['fapi', '/fapi/v1/trades', '/fapi/v1/trades?symbol=BTCUSDT'],
      ['fapi', '/fapi/v1/premiumIndex', '/fapi/v1/premiumIndex'],
      ['fapi', '/fapi/v1/fundingInfo', '/fapi/v1/fundingInfo'],
      ['fapi', '/fapi/v1/openInterest', '/fapi/v1/openInterest?symbol=BTCUSDT'],
      ['native', '/api/v1/markets', '/api/v1/markets'],
      ['native', '/api/v1/open-interest/{symbol}', '/api/v1/open-interest/BTC-USD'],
      ['native', '/healthz', '/healthz'],
    ];
    for (const [surface, path, url] of cases) {
      const r = await http(`${ex.url}${url}`);
      const pointer = `${surface}.json#/paths/${path.replaceAll('/', '~1')}/get/responses/200/content/application~1json/schema`;
      const valid = ajv.validate({ $ref: pointer }, r.body);
      expect({ url, status: r.status, errors: ajv.errors ?? null }).toEqual({
        url,
        status: 200,
        errors: null,
      });
      expect(valid).toBe(true);
    }
    // Errors too: the FAPI business envelope and the native one.
    const bad = await http(`${ex.url}/fapi/v1/klines?symbol=BTCUSDT&interval=2m`);
    expect(bad.status).toBe(400);
    expect(ajv.validate({ $ref: 'fapi.json#/components/schemas/FapiError' }, bad.body)).toBe(true);
    const missing = await http(`${ex.url}/api/v1/open-interest/NOPE`);
    expect(ajv.validate({ $ref: 'native.json#/components/schemas/NativeError' }, missing.body)).toBe(true);
  });

  it('the reference page (headless Chromium) shows every route the app serves, from local files only', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(ex.url) && !req.url().startsWith('data:')) outside.push(req.url());
    });
    const shown: string[] = [];
    for (const name of ['FAPI', 'Native']) {
      await page.goto(`${ex.url}/docs?urls.primaryName=${name}`);
      await page.waitForSelector('.opblock');
      const ops = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => {
          const method = [...b.classList].find((c) => /^opblock-(get|post|put|delete|patch)$/.test(c));
          const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path');
          return `${(method ?? '').replace('opblock-', '').toUpperCase()} ${path ?? ''}`;
        }),
      );
      expect({ name, surfaces: [...new Set(ops.map((o) => surfaceOf(o.split(' ')[1]!)))] }).toEqual({
        name,
        surfaces: [name === 'FAPI' ? 'fapi' : 'native'],
      });
      shown.push(...ops);
    }
    await page.close();
    expect([...new Set(shown)].sort()).toEqual(servedRoutes(ex));
    expect(outside).toEqual([]);
  }, 60_000);
});
