import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXCHANGE_NODE_ARGS } from './exchange-process';

const REPO = join(__dirname, '..', '..', '..', '..');
const ENTRY = 'dist/apps/exchange/src/main.js';

/** The node options a launcher puts before the exchange's entry point, source maps aside. */
function nodeOptionsOf(launcher: string): string[] | undefined {
  const shell = new RegExp(`^exec node ((?:--\\S+ )*)${ENTRY}$`, 'm').exec(launcher);
  const docker = new RegExp(`^CMD \\["node", ((?:"--[^"]+", )*)"${ENTRY}"\\]$`, 'm').exec(launcher);
  const options = shell?.[1]?.split(' ') ?? docker?.[1]?.split(', ').map((o) => o.replace(/"/g, ''));
  return options?.filter((o) => o !== '' && o !== '--enable-source-maps');
}

describe('the benchmark exchange process', () => {
  it.each(['deploy/scripts/start.sh', 'deploy/docker/Dockerfile'])(
    'gets the node options that %s starts the exchange with',
    (file) => {
      expect(nodeOptionsOf(readFileSync(join(REPO, file), 'utf8'))).toEqual(EXCHANGE_NODE_ARGS);
    },
  );

  it('reads the options of both launcher forms', () => {
    expect(nodeOptionsOf(`exec node --enable-source-maps --max-semi-space-size=64 ${ENTRY}\n`)).toEqual([
      '--max-semi-space-size=64',
    ]);
    expect(nodeOptionsOf(`CMD ["node", "--enable-source-maps", "--foo=1", "${ENTRY}"]\n`)).toEqual([
      '--foo=1',
    ]);
    expect(nodeOptionsOf('exec node other.js\n')).toBeUndefined();
  });
});
