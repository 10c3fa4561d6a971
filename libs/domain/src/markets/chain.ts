import { z } from 'zod';
import { feeTierSchema, type FeeTier, type Market, parseMarket } from './market';
import { normalizeSymbol } from '../symbols/normalize-symbol';
import { rpcUrlSchema } from '../prices/index-source-config';

export const chainConfigSchema = z.object({
  chainId: z.number().int().positive(),
  name: z.string().regex(/^[a-z0-9-]+$/),
  settlementAsset: z.literal('USDT'),
  /** JSON-RPC endpoint of the chain, for on-chain index sources (CHAIN_RPC_URL overrides it). */
  rpcUrl: rpcUrlSchema.optional(),
  feeTiers: z.array(feeTierSchema).min(1),
  markets: z.array(z.unknown()).min(1),
});

export interface Chain {
  chainId: number;
  name: string;
  settlementAsset: 'USDT';
  rpcUrl?: string;
  feeTiers: FeeTier[];
  markets: Market[];
}

/** Validates one deployment's configuration (the JSON in deploy/chains/<name>/chain.json). */
export function parseChain(input: unknown): Chain {
  const c = chainConfigSchema.parse(input);
  const markets = c.markets.map(parseMarket);
  const seen = new Set<string>();
  for (const m of markets) {
    if (seen.has(m.symbol)) throw new Error(`duplicate market ${m.symbol}`);
    seen.add(m.symbol);
  }
  const tiers = [...c.feeTiers].sort((a, b) => a.tier - b.tier);
  tiers.forEach((t, i) => {
    if (t.tier !== i) throw new Error('fee tiers must be numbered 0..n without gaps');
  });
  return {
    chainId: c.chainId,
    name: c.name,
    settlementAsset: c.settlementAsset,
    ...(c.rpcUrl !== undefined && { rpcUrl: c.rpcUrl }),
    feeTiers: tiers,
    markets,
  };
}

/** Looks a market up by any accepted alias; undefined when the deployment has no such symbol. */
export function findMarket(markets: readonly Market[], symbol: string): Market | undefined {
  const canonical = normalizeSymbol(symbol);
  return markets.find((m) => m.symbol === canonical);
}
