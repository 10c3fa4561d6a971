import { RequestMethod } from '@nestjs/common';
import {
  GUARDS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { API_DOC, type ApiDocSpec } from './api-doc';
import { type RouteInput, routeInputOf } from './route-inputs';

type Ctor = abstract new (...args: never[]) => unknown;

/** One route a controller declares, with what the OpenAPI builder reads from its metadata. */
export interface DeclaredRoute {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  /** OpenAPI form: `/api/v1/orders/{id}`. */
  path: string;
  controller: Ctor;
  handler: (...args: unknown[]) => unknown;
  doc?: ApiDocSpec;
  input?: RouteInput;
  /** Guard class names, class-level first. */
  guards: string[];
}

interface ModuleLike {
  module?: unknown;
  imports?: unknown[];
  controllers?: Ctor[];
}

/** Every controller reachable from a module, read from Nest's decorators (nothing is instantiated). */
export function controllersOf(root: unknown): Ctor[] {
  const seen = new Set<unknown>();
  const out = new Set<Ctor>();
  const visit = (m: unknown) => {
    if (!m || seen.has(m)) return;
    seen.add(m);
    if (typeof m === 'object' && 'module' in m) {
      const dynamic = m as ModuleLike;
      for (const c of dynamic.controllers ?? []) out.add(c);
      for (const i of dynamic.imports ?? []) visit(i);
      visit(dynamic.module);
      return;
    }
    if (typeof m !== 'function') return;
    for (const c of (Reflect.getMetadata('controllers', m) as Ctor[] | undefined) ?? []) out.add(c);
    for (const i of (Reflect.getMetadata('imports', m) as unknown[] | undefined) ?? []) visit(i);
  };
  visit(root);
  return [...out];
}

function join(...parts: string[]): string {
  const path = parts
    .flatMap((p) => p.split('/'))
    .filter((s) => s !== '')
    .join('/');
  return `/${path}`.replace(/:([^/]+)/g, '{$1}');
}

const guardNames = (target: object): string[] =>
  ((Reflect.getMetadata(GUARDS_METADATA, target) as { name: string }[] | undefined) ?? []).map((g) => g.name);

/** The routes of these controllers (a handler on several paths gives one route per path). */
export function declaredRoutes(controllers: readonly Ctor[]): DeclaredRoute[] {
  const out: DeclaredRoute[] = [];
  for (const controller of controllers) {
    const prefixes = [
      (Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined) ?? '',
    ].flat();
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (method === undefined || paths === undefined) continue;
      const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as
        Record<string, { data?: unknown }> | undefined;
      for (const prefix of prefixes)
        for (const path of [paths].flat())
          out.push({
            method: RequestMethod[method].toLowerCase() as DeclaredRoute['method'],
            path: join(prefix, path),
            controller,
            handler: handler as DeclaredRoute['handler'],
            doc: Reflect.getMetadata(API_DOC, handler) as ApiDocSpec | undefined,
            input: routeInputOf(args),
            guards: [...guardNames(controller), ...guardNames(handler as object)],
          });
    }
  }
  return out.sort((a, b) =>
    a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path),
  );
}
