// Bundles each app's compiled entry (dist/apps/<app>/src/main.js) into one file, in place, so a
// process starts without resolving and reading some 2,000 modules one by one (the matching
// engine's start, spawn to Nest's "started": 1.4 s from dist/, 1.0 s bundled). The rest of dist/
// stays as swc wrote it (tests and benchmarks import from it).
//
// Written without comments or indentation, in ASCII: one character outside ASCII anywhere in a
// file (a comment, a dependency's regular expression) makes V8 hold the whole 9 MB as a two-byte
// string, decoded from UTF-8 first. Stack traces still map to the TypeScript through the maps.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

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
  // Node reads and parses an entry's map as it loads it (--enable-source-maps): without the sources
  // copied in, a third of the size (a stack trace names the .ts file and line all the same).
  sourcesContent: false,
  external,
  logLevel: 'error',
  // Class names stay (Nest's providers and loggers are named by them).
  keepNames: true,
  minifyWhitespace: true,
  legalComments: 'none',
});

/**
 * esbuild escapes what lies outside ASCII in strings but leaves regular expressions as written:
 * the rest is escaped here (\uXXXX is the same character in a string, a regular expression or an
 * identifier; not in a template literal's raw text, which none has). A character beyond the BMP
 * would need another escape in each: it is left as it is, and said (the file then loads as before,
 * only slower).
 */
function toAscii(file) {
  const text = readFileSync(file, 'utf8');
  if (!/[^\x00-\x7f]/.test(text)) return;
  // After an odd run of backslashes the character was escaped itself ("\\é" is "é"): one goes.
  const ascii = text.replace(
    /(\\*)([\u0080-\ud7ff\ue000-\uffff])/g,
    (_, slashes, c) =>
      `${slashes.length % 2 ? slashes.slice(1) : slashes}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  writeFileSync(file, ascii);
  if (/[^\x00-\x7f]/.test(ascii))
    console.warn(`bundle: ${file} keeps characters beyond the BMP (loads as UTF-16)`);
}
for (const app of apps)
  for (const name of ['main.js', 'embedded-postgres.worker.js']) toAscii(join(DIST, app, 'src', name));

/**
 * keepNames' `__name` wrappers that change no name, blanked out (bundle-names.cjs says why), one
 * bundle per thread: parsing a bundle's own modules takes most of a second.
 */
async function blankNoOpNamesInAll(files) {
  const queue = [...files];
  let blanked = 0;
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const w = new Worker(new URL('./bundle-names.cjs', import.meta.url), { workerData: { file } });
      blanked += await new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), files.length) }, worker));
  return blanked;
}
const blanked = await blankNoOpNamesInAll(apps.map((app) => join(DIST, app, 'src/main.js')));
console.log(`bundled ${apps.join(', ')} (${blanked} name wrappers blanked)`);
