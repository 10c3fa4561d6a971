// Bundles each app's compiled entry (dist/apps/<app>/src/main.js) into one file, in place, so a
// process starts without resolving and reading some 2,000 modules one by one (the matching
// engine's start, spawn to Nest's "started": 1.4 s from dist/, 1.0 s bundled). The rest of dist/
// stays as swc wrote it (tests and benchmarks import from it).
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';

const DIST = 'dist/apps';
const WORKER = 'dist/libs/persistence/src/embedded/embedded-postgres.worker.js';

// Loaded from node_modules at run time: optional packages Nest and Fastify try and do without, and
// what finds files beside its own modules (PGlite its WebAssembly and data, ws's native helpers
// their binaries).
const external = [
  '@electric-sql/pglite',
  '@electric-sql/pglite-socket',
  'bufferutil',
  'utf-8-validate',
  '@fastify/static',
  '@fastify/view',
  '@nestjs/microservices',
  '@nestjs/platform-express',
  '@nestjs/websockets',
  'class-transformer',
  'class-validator',
  'pg-native',
];

const apps = readdirSync(DIST).filter((app) => existsSync(join(DIST, app, 'src/main.js')));
const entryPoints = {};
for (const app of apps) {
  const unbundled = join(DIST, app, 'src/main.unbundled.js');
  renameSync(join(DIST, app, 'src/main.js'), unbundled);
  entryPoints[`${app}/src/main`] = unbundled;
  // The embedded database's thread, which embedded-postgres.js finds beside itself.
  entryPoints[`${app}/src/embedded-postgres.worker`] = WORKER;
}
// One build for all of them: the modules they share are read and parsed once.
await build({
  entryPoints,
  outdir: DIST,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  external,
  logLevel: 'error',
  // Class names stay (Nest's providers and loggers are named by them).
  keepNames: true,
});
console.log(`bundled ${apps.join(', ')}`);
