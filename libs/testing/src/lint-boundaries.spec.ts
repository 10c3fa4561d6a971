import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './exchange-process';

/**
 * The workspace's own ESLint config on snippets placed at virtual paths: each forbidden edge between
 * projects is a lint error, the allowed ones are not. ESLint loads its config with a dynamic import,
 * which Jest's module sandbox refuses, so the snippets are linted by one child node process.
 */
const refused: [string, string, string][] = [
  ['a lib imports an app', 'libs/bus/src/x.ts', "import { RiskModule } from '@perp/risk';"],
  ['an app imports another app', 'apps/gateway/src/x.ts', "import { RiskModule } from '@perp/risk';"],
  [
    'an app imports the composition',
    'apps/risk/src/x.ts',
    "import { ExchangeModule } from '@perp/exchange';",
  ],
  [
    'an e2e spec imports another app',
    'apps/gateway/src/x.e2e.spec.ts',
    "import { RiskModule } from '@perp/risk';",
  ],
  [
    'a relative path into another app',
    'apps/exchange/src/x.ts',
    "import { http } from '../../gateway/src/a';",
  ],
  ['a relative path into another lib', 'libs/bus/src/k/x.ts', "import { m } from '../../../testing/src/m';"],
  ['domain imports Nest', 'libs/domain/src/x.ts', "import { Injectable } from '@nestjs/common';"],
  ['domain imports typeorm', 'libs/domain/src/x.ts', "import { DataSource } from 'typeorm';"],
  ['domain imports a database driver', 'libs/domain/src/x.ts', "import { Pool } from 'pg';"],
  ['domain imports node:fs', 'libs/domain/src/x.ts', "import { readFileSync } from 'node:fs';"],
  ['domain imports fs/promises', 'libs/domain/src/x.ts', "import { readFile } from 'fs/promises';"],
  ['domain imports node:net', 'libs/domain/src/x.ts', "import { connect } from 'node:net';"],
  [
    'domain imports a lib with I/O',
    'libs/domain/src/x.ts',
    "import { PersistenceModule } from '@perp/persistence';",
  ],
  [
    'a domain spec imports a lib with I/O',
    'libs/domain/src/x.spec.ts',
    "import { HOT_KEYS } from '@perp/contracts';",
  ],
];
const allowed: [string, string, string][] = [
  [
    'an app imports libs',
    'apps/gateway/src/x.ts',
    "import { Money } from '@perp/domain';\nimport { HOT_KEYS } from '@perp/contracts';",
  ],
  ['a lib imports a lib', 'libs/contracts/src/x.ts', "import { Money } from '@perp/domain';"],
  [
    'the composition imports app entry points',
    'apps/exchange/src/x.ts',
    "import { RiskModule } from '@perp/risk';",
  ],
  [
    'an e2e spec boots the composition',
    'apps/gateway/src/x.e2e.spec.ts',
    "import { ExchangeModule } from '@perp/exchange';",
  ],
  [
    'domain imports pure packages',
    'libs/domain/src/x.ts',
    "import BigNumber from 'bignumber.js';\nimport { z } from 'zod';",
  ],
  ['a relative path inside the project', 'apps/gateway/src/a/b/x.ts', "import { y } from '../../access/y';"],
];

/** Imports plus a use of every imported name, so no other rule (unused variables) speaks. */
function snippet(imports: string): string {
  const names = [...imports.matchAll(/import (?:\{ (\w+) \}|(\w+)) from/g)].map((m) => m[1] ?? m[2]);
  return `${imports}\nexport const used = [${names.join(', ')}];\n`;
}

const LINT_SCRIPT = `
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
const eslint = new ESLint();
const out = [];
for (const { filePath, code } of JSON.parse(readFileSync(0, 'utf8'))) {
  const [result] = await eslint.lintText(code, { filePath });
  out.push(result.messages.map((m) => ({ rule: m.ruleId, message: m.message })));
}
process.stdout.write(JSON.stringify(out));
`;

type Message = { rule: string | null; message: string };

function lint(cases: { filePath: string; code: string }[]): Message[][] {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', LINT_SCRIPT], {
    cwd: REPO_ROOT,
    input: JSON.stringify(cases),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe('module boundaries in lint', () => {
  const all = [...refused, ...allowed];
  let results: Map<string, Message[]>;

  beforeAll(() => {
    const messages = lint(all.map(([, filePath, imports]) => ({ filePath, code: snippet(imports) })));
    results = new Map(all.map(([name], i) => [name, messages[i]]));
  }, 120_000);

  it.each(refused)('refuses %s (%s)', (name) => {
    const messages = results.get(name)!;
    expect(messages).toEqual([{ rule: 'no-restricted-imports', message: expect.any(String) }]);
  });

  it.each(allowed)('allows %s (%s)', (name) => {
    expect(results.get(name)).toEqual([]);
  });
});
