import { composeIndexPrice } from '@perp/domain';
import type { JsonRpcApiProvider } from 'ethers';
import {
  ChainlinkAggregatorReader,
  IndexSourceReadError,
  jsonRpcProvider,
  roundReading,
  scaleAnswer,
} from './chainlink-aggregator';
import { type MockAggregator, TestChain } from './__fixtures__/test-chain';
import { PolledIndexSource } from './index-sources';

const CHAIN_ID = 31337;
const T = 1_700_000_000; // seconds, as aggregators count

describe('scaleAnswer and roundReading', () => {
  it('scales the answer by the decimals exactly', () => {
    expect(scaleAnswer(6500012345678n, 8)).toBe('65000.12345678');
    expect(scaleAnswer(6500000000000n, 8)).toBe('65000');
    expect(scaleAnswer(1n, 18)).toBe('0.000000000000000001');
    expect(scaleAnswer(123n, 0)).toBe('123');
    // Beyond 2^53 and with 18 decimals: every digit kept.
    expect(scaleAnswer(2n ** 70n + 1n, 18)).toBe('1180.591620717411303425');
    expect(scaleAnswer(2n ** 255n - 1n, 8)).toBe(
      '578960446186580977117854925043439539266349923328202820197287920039565.64819967',
    );
  });

  it('takes updatedAt as the reading time and refuses answers <= 0 and updatedAt 0', () => {
    expect(roundReading({ roundId: 7n, answer: 150n, updatedAt: BigInt(T) }, 1)).toEqual({
      price: '15',
      time: T * 1000,
      roundId: '7',
    });
    expect(() => roundReading({ roundId: 7n, answer: 0n, updatedAt: BigInt(T) }, 8)).toThrow(/answer 0/);
    expect(() => roundReading({ roundId: 7n, answer: -5n, updatedAt: BigInt(T) }, 8)).toThrow(/answer -5/);
    expect(() => roundReading({ roundId: 7n, answer: 5n, updatedAt: 0n }, 8)).toThrow(/updatedAt 0/);
    expect(() => roundReading({ roundId: 7n, answer: 5n, updatedAt: 2n ** 64n }, 8)).toThrow(
      IndexSourceReadError,
    );
  });
});

describe('ChainlinkAggregatorReader on an in-process EVM', () => {
  let chain: TestChain;
  let feed: MockAggregator;

  beforeAll(async () => {
    chain = await TestChain.start(CHAIN_ID);
    feed = await chain.deployAggregator(8);
  });

  afterAll(() => chain.close());

  const reader = (
    address = feed.address,
    provider: JsonRpcApiProvider = chain.provider(),
    expected = CHAIN_ID,
  ) => new ChainlinkAggregatorReader(provider, address, expected);

  it('reads the latest round: the answer scaled by decimals(), updatedAt as the time', async () => {
    await feed.setRound(1, 6500012345678n, T);
    const r = reader();
    expect(await r.read()).toEqual({ price: '65000.12345678', time: T * 1000, roundId: '1' });
    await feed.setRound(2, 6499900000000n, T + 60);
    expect(await r.read()).toEqual({ price: '64999', time: (T + 60) * 1000, roundId: '2' });
  });

  it('reads an 18-decimal aggregator exactly', async () => {
    const eth = await chain.deployAggregator(18);
    expect(eth.address).not.toBe(feed.address);
    await eth.setRound(5, 3500123456789012345678n, T);
    expect(await reader(eth.address).read()).toMatchObject({ price: '3500.123456789012345678' });
  });

  it('refuses a round with answer <= 0, updatedAt 0, or no round at all', async () => {
    const fresh = await chain.deployAggregator(8);
    await expect(reader(fresh.address).read()).rejects.toThrow('round 0 refused: answer 0');
    await fresh.setRound(3, -1n, T);
    await expect(reader(fresh.address).read()).rejects.toThrow('round 3 refused: answer -1');
    await fresh.setRound(4, 100n, 0);
    await expect(reader(fresh.address).read()).rejects.toThrow('round 4 refused: updatedAt 0');
  });

  it('a reverting aggregator, another contract, an empty address and the wrong chain are failures', async () => {
    const down = await chain.deployAggregator(8);
    await down.setRound(1, 100n, T);
    await down.setFailing(true);
    await expect(reader(down.address).read()).rejects.toThrow('call reverted: aggregator down');
    await expect(reader(await chain.deployOther()).read()).rejects.toThrow(/call reverted/);
    await expect(reader(`0x${'12'.repeat(20)}`).read()).rejects.toThrow(/not an aggregator/);
    const other = await TestChain.start(1);
    await expect(reader(feed.address, other.provider()).read()).rejects.toThrow(
      'endpoint is on chain 1, expected 31337',
    );
    const err = await reader(down.address)
      .read()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexSourceReadError);
  });

  it('a round older than maxAge is stale in the composite', async () => {
    const eth = await chain.deployAggregator(8);
    const source = new PolledIndexSource('chainlink', 'chainlink', '1', 3600_000, reader(eth.address), {
      failuresToOpen: 3,
      coolDownMs: 30_000,
    });
    await eth.setRound(1, 350000000000n, T);
    const now = (T + 3600) * 1000;
    expect(await source.poll(now)).toBe(false);
    expect(composeIndexPrice([source.input(now)], { now })).toMatchObject({
      status: 'AVAILABLE',
      price: '3500',
    });
    expect(composeIndexPrice([source.input(now + 1)], { now: now + 1 })).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NO_FRESH_SOURCE',
      sources: [{ name: 'chainlink', state: 'STALE', price: '3500', time: T * 1000 }],
    });
  });

  it('repeated failures open the circuit; after the cool-down one good read closes it', async () => {
    const eth = await chain.deployAggregator(8);
    await eth.setRound(1, 350000000000n, T);
    const aggregator = reader(eth.address);
    const read = jest.spyOn(aggregator, 'read');
    const source = new PolledIndexSource('eth', 'chainlink', '1', 3600_000, aggregator, {
      failuresToOpen: 3,
      coolDownMs: 30_000,
    });
    let now = T * 1000;
    await source.poll(now);
    await eth.setFailing(true);
    for (let i = 0; i < 2; i++) expect(await source.poll((now += 1000))).toBe(true);
    // Two failures: the last good reading still counts while fresh.
    expect(composeIndexPrice([source.input(now)], { now })).toMatchObject({
      status: 'AVAILABLE',
      price: '3500',
    });
    expect(await source.poll((now += 1000))).toBe(true);
    expect(source.health(now)).toEqual({
      name: 'eth',
      kind: 'chainlink',
      circuit: 'OPEN',
      failures: 3,
      lastError: 'call reverted: aggregator down',
    });
    expect(composeIndexPrice([source.input(now)], { now })).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'CIRCUIT_OPEN',
    });
    // Open: no call is made during the cool-down.
    const opened = now;
    await eth.setFailing(false);
    await source.poll(opened + 29_999);
    expect(read).toHaveBeenCalledTimes(4);
    // Half-open: one trial, which succeeds and closes the circuit.
    now = opened + 30_000;
    expect(await source.poll(now)).toBe(false);
    expect(read).toHaveBeenCalledTimes(5);
    expect(source.health(now)).toEqual({ name: 'eth', kind: 'chainlink', circuit: 'CLOSED', failures: 0 });
    expect(composeIndexPrice([source.input(now)], { now })).toMatchObject({ status: 'AVAILABLE' });
  });

  it('the wrong chain keeps failing and opens the circuit', async () => {
    const other = await TestChain.start(10);
    const source = new PolledIndexSource(
      'op',
      'chainlink',
      '1',
      60_000,
      reader(feed.address, other.provider()),
      {
        failuresToOpen: 2,
        coolDownMs: 1000,
      },
    );
    await source.poll(1);
    await source.poll(2);
    expect(source.health(2)).toMatchObject({
      circuit: 'OPEN',
      lastError: 'endpoint is on chain 10, expected 31337',
    });
  });

  it('reads through an HTTP JSON-RPC endpoint; an endpoint on another chain or down is a failure', async () => {
    const url = await chain.serve();
    await feed.setRound(9, 6512300000000n, T);
    const provider = jsonRpcProvider(url, CHAIN_ID, 5000);
    try {
      expect(await reader(feed.address, provider).read()).toEqual({
        price: '65123',
        time: T * 1000,
        roundId: '9',
      });
    } finally {
      provider.destroy();
    }
    // An endpoint on another chain: JsonRpcProvider's fixed network does not hide it.
    const other = await TestChain.start(1);
    const wrong = jsonRpcProvider(await other.serve(), CHAIN_ID, 5000);
    try {
      await expect(reader(feed.address, wrong).read()).rejects.toThrow(
        'endpoint is on chain 1, expected 31337',
      );
    } finally {
      wrong.destroy();
      await other.close();
    }
    await chain.close();
    const gone = jsonRpcProvider(url, CHAIN_ID, 5000);
    try {
      await expect(reader(feed.address, gone).read()).rejects.toThrow(IndexSourceReadError);
    } finally {
      gone.destroy();
    }
  });
});
