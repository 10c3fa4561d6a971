import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { NATIVE_ERRORS } from '@perp/contracts';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { http } from '../../access/access.harness';
import { NATIVE_OPENAPI } from './native-openapi';

/** `:id` and `{id}` alike: parameters compare by position, not by name. */
function shape(path: string): string {
  return path
    .replace(/\/+$/, '')
    .replace(/:[^/]+/g, '{}')
    .replace(/\{[^}]+\}/g, '{}');
}

function join(...parts: string[]): string {
  return (
    '/' +
    parts
      .flatMap((p) => p.split('/'))
      .filter((s) => s !== '')
      .join('/')
  );
}

/** Every route the app's controllers register, as `METHOD /path` (from Nest's routing metadata). */
function registeredRoutes(ex: InProcessExchange): string[] {
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
          for (const path of [paths].flat()) out.add(`${RequestMethod[method]} ${join(prefix ?? '', path)}`);
      }
    }
  return [...out].sort();
}

describe('native OpenAPI document', () => {
  let ex: InProcessExchange;

  beforeAll(async () => {
    ex = await startInProcessExchange();
  });
  afterAll(() => ex?.close());

  it('is served at GET /api/v1/openapi.json without a login', async () => {
    const r = await http(`${ex.url}/api/v1/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ openapi: '3.1.0', info: { title: expect.any(String) } });
    expect(r.body).toEqual(JSON.parse(JSON.stringify(NATIVE_OPENAPI)));
  });

  it('documents every native and admin route the app registers, and no route it does not', () => {
    const native = registeredRoutes(ex)
      .filter((r) => / \/(api|admin)\//.test(r))
      .map((r) => {
        const [method, path] = r.split(' ');
        return `${method} ${shape(path)}`;
      });
    expect(native.length).toBeGreaterThan(20);
    const documented = Object.entries(NATIVE_OPENAPI.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${shape(path)}`),
    );
    expect(native.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !native.includes(r))).toEqual([]);
  });

  it('names path parameters in every templated path, and only error codes the service has', () => {
    const codes = new Set(Object.keys(NATIVE_ERRORS));
    for (const [path, item] of Object.entries(NATIVE_OPENAPI.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const operation of Object.values(item)) {
        const params = (operation.parameters ?? [])
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        expect({ path, params }).toEqual({ path, params: names });
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400 || '$ref' in response) continue;
          const schema = response.content?.['application/json']?.schema as {
            properties?: { code?: { enum?: string[] } };
          };
          for (const code of schema.properties?.code?.enum ?? []) expect(codes).toContain(code);
        }
      }
    }
  });

  it('resolves every $ref to a component schema', () => {
    const refs = [...JSON.stringify(NATIVE_OPENAPI).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(0);
    for (const [, name] of refs) expect(NATIVE_OPENAPI.components.schemas).toHaveProperty(name);
  });
});
