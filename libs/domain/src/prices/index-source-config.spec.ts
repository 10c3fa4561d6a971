import { parseChain } from '../markets/chain';
import { parseMarket } from '../markets/market';
import { BTC } from '../account/__fixtures__/markets';
import { indexCompositeDescription, indexSourceName, indexSourcesSchema } from './index-source-config';

const FEED = '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c';

describe('indexSources configuration', () => {
  it('takes defaults: weight 1, 3 failures, 30 s cool-down, simulated fresh for 60 s', () => {
    const c = indexSourcesSchema.parse({
      sources: [{ kind: 'chainlink', address: FEED, maxAgeSeconds: 3600 }, { kind: 'simulated' }],
    });
    expect(c).toEqual({
      sources: [
        { kind: 'chainlink', address: FEED, maxAgeSeconds: 3600, weight: '1' },
        { kind: 'simulated', maxAgeSeconds: 60, weight: '1' },
      ],
      failuresToOpen: 3,
      coolDownSeconds: 30,
    });
    expect(indexCompositeDescription(c)).toBe(`median(chainlink:${FEED.toLowerCase()},simulated)`);
  });

  it('names a source by its name when given', () => {
    expect(indexSourceName({ kind: 'admin', name: 'ops' })).toBe('ops');
    expect(indexSourceName({ kind: 'admin' })).toBe('admin');
  });

  it.each([
    ['no source', { sources: [] }],
    ['an unknown kind', { sources: [{ kind: 'pyth', maxAgeSeconds: 1 }] }],
    ['a bad address', { sources: [{ kind: 'chainlink', address: '0x12', maxAgeSeconds: 60 }] }],
    ['chainlink without maxAgeSeconds', { sources: [{ kind: 'chainlink', address: FEED }] }],
    [
      'a websocket rpcUrl',
      { sources: [{ kind: 'chainlink', address: FEED, maxAgeSeconds: 60, rpcUrl: 'ws://x' }] },
    ],
    ['a zero weight', { sources: [{ kind: 'admin', maxAgeSeconds: 60, weight: '0' }] }],
    ['a negative deviation', { sources: [{ kind: 'simulated' }], maxDeviationPercent: '-1' }],
    ['zero failuresToOpen', { sources: [{ kind: 'simulated' }], failuresToOpen: 0 }],
    [
      'two sources of one name',
      {
        sources: [
          { kind: 'admin', maxAgeSeconds: 5 },
          { kind: 'admin', maxAgeSeconds: 9 },
        ],
      },
    ],
  ])('refuses %s', (_, input) => {
    expect(indexSourcesSchema.safeParse(input).success).toBe(false);
  });

  it('is optional on a market and validated there', () => {
    expect(BTC.indexSources).toBeUndefined();
    const withSources = parseMarket({
      ...BTC,
      indexSources: { sources: [{ kind: 'admin', maxAgeSeconds: 60 }] },
    });
    expect(withSources.indexSources?.sources[0]).toEqual({ kind: 'admin', maxAgeSeconds: 60, weight: '1' });
    expect(() => parseMarket({ ...BTC, indexSources: { sources: [{ kind: 'admin' }] } })).toThrow();
  });

  it('a chain may name its JSON-RPC endpoint', () => {
    const chain = {
      chainId: 42161,
      name: 'arbitrum',
      settlementAsset: 'USDT',
      feeTiers: [{ tier: 0, makerRate: '0', takerRate: '0' }],
      markets: [BTC],
    };
    expect(parseChain(chain).rpcUrl).toBeUndefined();
    expect(parseChain({ ...chain, rpcUrl: 'https://rpc.example/arb' }).rpcUrl).toBe(
      'https://rpc.example/arb',
    );
    expect(() => parseChain({ ...chain, rpcUrl: 'not a url' })).toThrow();
  });
});
