import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../exchange-process';

// The repository stands alone: every relative link of every tracked Markdown file names a file of
// the repository (a fresh clone has nothing beside it).
const markdown = execFileSync('git', ['ls-files', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);

describe('Markdown links', () => {
  it('finds the README and the docs', () => {
    expect(markdown).toEqual(expect.arrayContaining(['README.md', 'docs/api-overview.md']));
  });

  it.each(markdown)('%s links only to files inside the repository', (file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split('#')[0]!)
      .filter((t) => t !== '' && !/^[a-z]+:/i.test(t));
    for (const target of targets) {
      const path = join(REPO_ROOT, dirname(file), target);
      const inside = !relative(REPO_ROOT, path).startsWith('..');
      expect({ target, inside, exists: existsSync(path) }).toEqual({ target, inside: true, exists: true });
    }
    expect(text).not.toContain('../shared/');
  });
});
