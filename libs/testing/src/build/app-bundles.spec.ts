import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { ensureBuilt, REPO_ROOT } from '../exchange-process';

const APPS = readdirSync(join(REPO_ROOT, 'apps')).filter((app) =>
  readdirSync(join(REPO_ROOT, 'apps', app, 'src')).includes('main.ts'),
);

/** deploy/scripts/bundle.mjs: each app's entry in dist/ is one file whose source map leads to TypeScript. */
describe('app bundles', () => {
  beforeAll(() => ensureBuilt());

  it.each(APPS)(
    '%s: its entry loads no module of the repository at run time, and maps to its main.ts',
    (app) => {
      const dir = join(REPO_ROOT, 'dist/apps', app, 'src');
      const code = readFileSync(join(dir, 'main.js'), 'utf8');
      // swc's output requires the libs and the app's modules by relative path; a bundle holds them.
      expect(code).not.toMatch(/require\("\.{1,2}\//);
      expect(code).toContain('//# sourceMappingURL=main.js.map');
      const map = JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8')) as { sources: string[] };
      expect(map.sources).toContain(`../../../../apps/${app}/src/main.ts`);
      expect(map.sources).toContain('../../../../libs/bus/src/bus.ts');
    },
  );

  it.each(APPS)(
    '%s: its entry and database thread are ASCII (one other character makes V8 hold the file as UTF-16)',
    (app) => {
      const dir = join(REPO_ROOT, 'dist/apps', app, 'src');
      for (const file of ['main.js', 'embedded-postgres.worker.js'])
        expect({ file, outside: readFileSync(join(dir, file), 'latin1').match(/[\x80-\xff]/g) }).toEqual({
          file,
          outside: null,
        });
    },
  );

  it('a position in a bundle maps back to the TypeScript line it came from (stack traces)', () => {
    const dir = join(REPO_ROOT, 'dist/apps/gateway/src');
    const needle = 'kafkajs: no cluster factory';
    const lines = readFileSync(join(dir, 'main.js'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes(needle));
    expect(line).toBeGreaterThanOrEqual(0);
    const map = new SourceMap(JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8')) as SourceMapPayload);
    const entry = map.findEntry(line, lines[line]!.indexOf(needle)) as {
      originalSource: string;
      originalLine: number;
    };
    expect(entry.originalSource).toMatch(/libs\/bus\/src\/kafka\/kafka-reader\.ts$/);
    const ts = readFileSync(join(REPO_ROOT, 'libs/bus/src/kafka/kafka-reader.ts'), 'utf8').split('\n');
    expect(ts[entry.originalLine]).toContain(needle);
  });
});
