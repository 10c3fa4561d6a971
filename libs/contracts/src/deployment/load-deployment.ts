import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Chain, parseChain } from '@perp/domain';

/** Reads and validates deploy/chains/<chain>/chain.json; errors name the file and the field. */
export function loadChain(deployDir: string, chain: string): Chain {
  const file = join(deployDir, 'chains', chain, 'chain.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read chain configuration ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return parseChain(raw);
  } catch (e) {
    throw new Error(`invalid chain configuration ${file}: ${(e as Error).message}`, { cause: e });
  }
}
