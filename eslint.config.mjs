import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Module boundaries, by the `tags` of each project.json (the rule Nx's @nx/enforce-module-boundaries
 * would apply; it has no release for this workspace's Nx 24, so core `no-restricted-imports` does it).
 * A project may import another only when, for every constraint matching one of its tags, the other
 * carries one of the allowed tags. Imports between projects go through the `@perp/*` entry points:
 * a relative path into another project's `src` is refused everywhere.
 */
const DEP_CONSTRAINTS = [
  { sourceTag: 'type:lib', onlyDependOnTags: ['type:lib'] },
  // Apps never import apps: what they share lives in a lib.
  { sourceTag: 'type:app', onlyDependOnTags: ['type:lib'] },
  // The embedded exchange composes the apps' modules, through their entry points.
  { sourceTag: 'type:composition', onlyDependOnTags: ['type:lib', 'type:app'] },
  // Rules without I/O: only other projects without I/O, and no I/O package or node module.
  {
    sourceTag: 'io:none',
    onlyDependOnTags: ['io:none'],
    bannedExternal: [
      '^(@nestjs|@electric-sql)/',
      '^(typeorm|pg|ioredis|kafkajs|pino|prom-client)(/.*)?$',
      '^(node:)?(fs|net|http|https|http2|dgram|dns|tls|child_process|cluster|worker_threads|readline)(/.*)?$',
    ],
  },
];
/** End-to-end specs of an app may boot the composed exchange (a test-only edge, nothing ships it). */
const E2E_SPEC_MAY_ALSO_USE = ['type:composition'];

const workspace = import.meta.dirname;
const aliasByRoot = new Map(
  Object.entries(
    JSON.parse(readFileSync(join(workspace, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths,
  ).map(([alias, [entry]]) => [entry.replace(/^\.\//, '').replace(/\/src\/index\.ts$/, ''), alias]),
);
const projects = ['apps', 'libs'].flatMap((dir) =>
  readdirSync(join(workspace, dir))
    .filter((name) => existsSync(join(workspace, dir, name, 'project.json')))
    .map((name) => {
      const root = `${dir}/${name}`;
      const { tags = [] } = JSON.parse(readFileSync(join(workspace, root, 'project.json'), 'utf8'));
      return { root, tags, alias: aliasByRoot.get(root) };
    }),
);

function allowedBy(constraints, target) {
  return constraints.every((c) => c.onlyDependOnTags.some((t) => target.tags.includes(t)));
}

function boundaryRule(source, extraTags) {
  const constraints = DEP_CONSTRAINTS.filter((c) => source.tags.includes(c.sourceTag)).map((c) => ({
    ...c,
    onlyDependOnTags: [...c.onlyDependOnTags, ...extraTags],
  }));
  const tags = `[${source.tags.join(', ')}]`;
  const paths = projects
    .filter((p) => p !== source && p.alias && !allowedBy(constraints, p))
    .map((p) => ({
      name: p.alias,
      message: `${source.root} ${tags} must not depend on ${p.root} [${p.tags.join(', ')}].`,
    }));
  const patterns = [
    {
      regex: '^(\\.\\./)+((apps|libs)/)?[^/]+/src(/|$)',
      message: 'Import another project through its @perp/* entry point, not a relative path into its src.',
    },
    ...constraints.flatMap((c) =>
      (c.bannedExternal ?? []).map((regex) => ({
        regex,
        message: `${source.root} ${tags} must not use I/O packages.`,
      })),
    ),
  ];
  return { 'no-restricted-imports': ['error', { paths, patterns }] };
}

const boundaries = projects.flatMap((p) => [
  { files: [`${p.root}/**/*.ts`], rules: boundaryRule(p, []) },
  ...(p.root.startsWith('apps/')
    ? [{ files: [`${p.root}/**/*.e2e.spec.ts`], rules: boundaryRule(p, E2E_SPEC_MAY_ALSO_USE) }]
    : []),
]);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'tmp/**',
      '.nx/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='parseFloat']",
          message: 'Money never touches floats: use bignumber.js or integer ticks.',
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  ...boundaries,
);
