import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXCHANGE_NODE_ARGS } from './exchange-process';

const REPO = join(__dirname, '..', '..', '..', '..');

describe('the benchmark exchange process', () => {
  it.each(['deploy/scripts/start.sh', 'deploy/docker/Dockerfile'])(
    'gets the node options that %s starts the exchange with',
    (file) => {
      const launcher = readFileSync(join(REPO, file), 'utf8');
      for (const option of EXCHANGE_NODE_ARGS) expect(launcher).toContain(option);
    },
  );
});
