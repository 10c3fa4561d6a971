import { type IndexSourceReading, Money } from '@perp/domain';
import {
  Contract,
  FetchRequest,
  formatUnits,
  isError,
  JsonRpcProvider,
  type JsonRpcApiProvider,
  Network,
} from 'ethers';

/** The two functions of Chainlink's AggregatorV3Interface the index reads. */
export const AGGREGATOR_V3_ABI = [
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
] as const;

/** A read that gave no usable price: the call failed or the round was refused. Counts as a failure. */
export class IndexSourceReadError extends Error {
  override readonly name = 'IndexSourceReadError';
}

export interface AggregatorRound {
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

export interface AggregatorReading extends IndexSourceReading {
  roundId: string;
}

/** `answer` / 10^decimals as a plain decimal string, exactly (bigint arithmetic, no float). */
export function scaleAnswer(answer: bigint, decimals: number): string {
  return new Money(formatUnits(answer, decimals)).toFixed();
}

/**
 * A round as an index reading, or an error for a round no price may come from: an answer <= 0 (a
 * feed that lost its price reports 0) or updatedAt 0 (a round never completed). The reading's time
 * is updatedAt, the chain's time of the answer, which the staleness guard compares with the clock.
 */
export function roundReading(round: AggregatorRound, decimals: number): AggregatorReading {
  if (round.answer <= 0n)
    throw new IndexSourceReadError(`round ${round.roundId} refused: answer ${round.answer}`);
  if (round.updatedAt === 0n) throw new IndexSourceReadError(`round ${round.roundId} refused: updatedAt 0`);
  const time = round.updatedAt * 1000n;
  if (time > BigInt(Number.MAX_SAFE_INTEGER))
    throw new IndexSourceReadError(`round ${round.roundId} refused: updatedAt ${round.updatedAt}`);
  return {
    price: scaleAnswer(round.answer, decimals),
    time: Number(time),
    roundId: round.roundId.toString(),
  };
}

/**
 * Reads a Chainlink-style aggregator through an ethers JSON-RPC provider. The endpoint's chain id is
 * checked (once it matched, not again) and `decimals()` is read once, since neither changes; every
 * read calls `latestRoundData()`. Any failure (wrong chain, no contract or another contract at the
 * address, a revert, a refused round, a transport error) rejects with IndexSourceReadError.
 */
export class ChainlinkAggregatorReader {
  private readonly aggregator: Contract;
  private chainChecked = false;
  private decimals?: number;

  constructor(
    private readonly provider: JsonRpcApiProvider,
    readonly address: string,
    readonly expectedChainId: number,
  ) {
    this.aggregator = new Contract(address, AGGREGATOR_V3_ABI, provider);
  }

  async read(): Promise<AggregatorReading> {
    try {
      if (!this.chainChecked) {
        const chainId = BigInt((await this.provider.send('eth_chainId', [])) as string);
        if (chainId !== BigInt(this.expectedChainId))
          throw new IndexSourceReadError(`endpoint is on chain ${chainId}, expected ${this.expectedChainId}`);
        this.chainChecked = true;
      }
      this.decimals ??= Number(await this.aggregator.getFunction('decimals').staticCall());
      const r = (await this.aggregator.getFunction('latestRoundData').staticCall()) as unknown as bigint[];
      return roundReading({ roundId: r[0]!, answer: r[1]!, updatedAt: r[3]! }, this.decimals);
    } catch (e) {
      if (e instanceof IndexSourceReadError) throw e;
      throw new IndexSourceReadError(describeCallError(e), { cause: e });
    }
  }
}

function describeCallError(e: unknown): string {
  if (isError(e, 'CALL_EXCEPTION')) return `call reverted: ${e.reason ?? e.shortMessage}`;
  if (isError(e, 'BAD_DATA')) return `not an aggregator: ${e.shortMessage}`;
  if (e instanceof Error && 'shortMessage' in e) return String(e.shortMessage);
  return e instanceof Error ? e.message : String(e);
}

/**
 * An HTTP JSON-RPC provider for one endpoint: the network is fixed (no detection loop when the
 * endpoint is down; the reader checks the chain id itself) and a request gives up after
 * `timeoutMs`, so a hung endpoint is a failure, not a stalled feed.
 */
export function jsonRpcProvider(url: string, chainId: number, timeoutMs: number): JsonRpcProvider {
  const request = new FetchRequest(url);
  request.timeout = timeoutMs;
  const network = Network.from(chainId);
  return new JsonRpcProvider(request, network, { staticNetwork: network });
}
