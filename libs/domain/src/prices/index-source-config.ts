import { z } from 'zod';
import { parseDecimal } from '../money/money';

const positiveDecimal = z
  .string()
  .refine((v) => parseDecimal(v)?.gt(0) === true, 'a positive decimal string');

/** An http(s) JSON-RPC endpoint. */
export const rpcUrlSchema = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'an http:// or https:// URL');

const common = {
  /** The source's name in the composite's description and status (default: from its kind). */
  name: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/)
    .optional(),
  /** Weight in the weighted median. */
  weight: positiveDecimal.default('1'),
};
/** A reading older than this is stale (a week at most). */
const maxAgeSeconds = z
  .number()
  .int()
  .min(1)
  .max(7 * 86400);

/**
 * A Chainlink-style AggregatorV3Interface contract (latestRoundData, decimals). The RPC endpoint is
 * `rpcUrl` or else the chain's (chain.json `rpcUrl`, overridden by CHAIN_RPC_URL); the endpoint must
 * answer `chainId` (default: the deployment's chainId). Keep keyed RPC URLs out of the market
 * configuration, which travels on the markets topic: use CHAIN_RPC_URL for those.
 */
export const chainlinkIndexSourceSchema = z.object({
  kind: z.literal('chainlink'),
  ...common,
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 20-byte hex address'),
  rpcUrl: rpcUrlSchema.optional(),
  chainId: z.number().int().positive().optional(),
  /** Longer than the feed's heartbeat: a round older than this is stale. */
  maxAgeSeconds,
});

/** The operator's latest push (POST /admin/v1/prices/{symbol}), fresh for maxAgeSeconds. */
export const adminIndexSourceSchema = z.object({ kind: z.literal('admin'), ...common, maxAgeSeconds });

/** The deterministic demo walk (PRICE_FEED_SEED); always fresh. */
export const simulatedIndexSourceSchema = z.object({
  kind: z.literal('simulated'),
  ...common,
  maxAgeSeconds: maxAgeSeconds.default(60),
});

export const indexSourceSchema = z.discriminatedUnion('kind', [
  chainlinkIndexSourceSchema,
  adminIndexSourceSchema,
  simulatedIndexSourceSchema,
]);
export type IndexSourceConfig = z.infer<typeof indexSourceSchema>;
export type ChainlinkIndexSourceConfig = z.infer<typeof chainlinkIndexSourceSchema>;

/** A market's composite index (PRICE_SOURCE=composite): sources, deviation guard, circuit breakers. */
export const indexSourcesSchema = z
  .object({
    sources: z.array(indexSourceSchema).min(1).max(16),
    /** A source further than this from the median of the fresh sources is dropped (no guard when absent). */
    maxDeviationPercent: positiveDecimal.optional(),
    /** Consecutive failed reads that open a source's circuit. */
    failuresToOpen: z.number().int().min(1).max(100).default(3),
    /** How long an open circuit waits before one trial read. */
    coolDownSeconds: z.number().int().min(0).max(86400).default(30),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.sources.forEach((s, i) => {
      const name = indexSourceName(s);
      if (seen.has(name))
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'name'],
          message: `duplicate source name ${name}`,
        });
      seen.add(name);
    });
  });
export type IndexSourcesConfig = z.infer<typeof indexSourcesSchema>;

/** The configured name, or chainlink:<address in lower case>, admin, simulated. */
export function indexSourceName(
  source: Pick<IndexSourceConfig, 'kind' | 'name'> & { address?: string },
): string {
  if (source.name !== undefined) return source.name;
  return source.kind === 'chainlink' ? `chainlink:${source.address!.toLowerCase()}` : source.kind;
}

/** The `source` of a composite's price events: `median(<name>,<name>...)`. */
export function indexCompositeDescription(config: Pick<IndexSourcesConfig, 'sources'>): string {
  return `median(${config.sources.map(indexSourceName).join(',')})`;
}
