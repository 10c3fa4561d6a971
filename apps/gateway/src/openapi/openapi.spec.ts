import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAPI_AUTH_ERRORS, FAPI_ERRORS, NATIVE_ERRORS, NEW_ORDER_PARAMS } from '@perp/contracts';
import { REPO_ROOT } from '@perp/testing';
import { GatewayModule } from '../gateway.module';
import { gatewayDocuments } from './documents';
import { fillGenerated, overviewTables } from './overview-tables';
import { controllersOf, declaredRoutes } from './routes';
import type { Surface } from './surfaces';

const SURFACES: Surface[] = ['fapi', 'native'];
const fileOf = (s: Surface) => join(REPO_ROOT, 'docs', 'openapi', `${s}.json`);
const text = (s: Surface) => JSON.stringify(gatewayDocuments()[s], null, 2) + '\n';
const operations = (s: Surface) =>
  Object.entries(gatewayDocuments()[s].paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  );

describe('OpenAPI documents (built from the controllers and their parsing schemas)', () => {
  it.each(SURFACES)(
    'docs/openapi/%s.json is the generated document (regenerate with UPDATE_OPENAPI=1)',
    (surface) => {
      if (process.env.UPDATE_OPENAPI === '1') writeFileSync(fileOf(surface), text(surface));
      expect(existsSync(fileOf(surface))).toBe(true);
      expect(readFileSync(fileOf(surface), 'utf8')).toBe(text(surface));
    },
  );

  it('docs/api-overview.md carries the generated error, limit and weight tables (UPDATE_OPENAPI=1)', () => {
    const file = join(REPO_ROOT, 'docs', 'api-overview.md');
    const filled = fillGenerated(readFileSync(file, 'utf8'), overviewTables(gatewayDocuments().fapi));
    // Formatted as the repository's prettier check wants it.
    const prettier = join(REPO_ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
    const formatted = execFileSync(process.execPath, [prettier, '--stdin-filepath', file], {
      input: filled,
      encoding: 'utf8',
    });
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(file, formatted);
    expect(readFileSync(file, 'utf8')).toBe(formatted);
    expect(formatted).toMatch(/\| -1121 +\| `INVALID_SYMBOL` +\| 400 +\|/);
  });

  it.each(SURFACES)('%s validates against the OpenAPI 3.1 schema', (surface) => {
    const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const out = execFileSync(process.execPath, [cli, fileOf(surface)], { encoding: 'utf8' });
    expect(JSON.parse(out)).toMatchObject({ valid: true });
  });

  it('documents every route of every gateway controller, each on one surface', () => {
    const routes = declaredRoutes(controllersOf(GatewayModule));
    expect(routes.length).toBeGreaterThan(60);
    const documented = new Set(SURFACES.flatMap((s) => operations(s).map((o) => `${o.method} ${o.path}`)));
    expect(routes.map((r) => `${r.method} ${r.path}`).filter((r) => !documented.has(r))).toEqual([]);
  });

  it('every parameter a FAPI handler reads is a documented one (FapiInput), with the signing ones on signed routes', () => {
    const order = gatewayDocuments().fapi.paths['/fapi/v1/order']!.post as {
      parameters: { name: string; in: string; required: boolean }[];
      requestBody: { content: Record<string, { schema: { properties: object; required: string[] } }> };
    };
    const body = order.requestBody.content['application/json']!.schema;
    expect(Object.keys(body.properties)).toEqual(Object.keys(NEW_ORDER_PARAMS));
    expect(body.required).toEqual(['symbol', 'side', 'type']);
    expect(order.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['timestamp', 'query', true],
      ['recvWindow', 'query', false],
      ['signature', 'query', true],
    ]);
    const klines = gatewayDocuments().fapi.paths['/fapi/v1/klines']!.get as {
      parameters: { name: string }[];
    };
    expect(klines.parameters.map((p) => p.name)).toEqual([
      'symbol',
      'interval',
      'startTime',
      'endTime',
      'limit',
    ]);
  });

  it('names only error codes the service has, in their envelope', () => {
    const fapiCodes = new Set<number | string>([
      ...Object.values(FAPI_ERRORS).map((e) => e.code),
      ...Object.keys(FAPI_AUTH_ERRORS),
    ]);
    const nativeCodes = new Set(Object.keys(NATIVE_ERRORS));
    const enums = (s: Surface) => [
      ...JSON.stringify(gatewayDocuments()[s].paths).matchAll(/"code":\{"enum":(\[[^\]]*\])/g),
    ];
    for (const [, list] of enums('fapi'))
      for (const c of JSON.parse(list!) as (number | string)[]) expect(fapiCodes).toContain(c);
    for (const [, list] of enums('native'))
      for (const c of JSON.parse(list!) as string[]) expect(nativeCodes).toContain(c);
  });

  it('resolves every $ref to a component schema', () => {
    for (const s of SURFACES) {
      const doc = gatewayDocuments()[s];
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)];
      expect(refs.length).toBeGreaterThan(0);
      for (const [, name] of refs) expect(doc.components.schemas).toHaveProperty(name!);
    }
  });
});
