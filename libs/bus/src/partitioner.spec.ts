import { Partitioners } from 'kafkajs';
import { KeyPartitioner, murmur2, partitionOf } from './partitioner';

describe('partitioner', () => {
  it("matches the Java client's murmur2 (Kafka UtilsTest values)", () => {
    expect(murmur2('21')).toBe(-973932308);
    expect(murmur2('foobar')).toBe(-790332482);
    expect(murmur2('a-little-bit-long-string')).toBe(-985981536);
    expect(murmur2('a-little-bit-longer-string')).toBe(-1486304829);
    expect(murmur2('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8')).toBe(-58897971);
    expect(murmur2('abc')).toBe(479470107);
  });

  it('takes toPositive(murmur2) modulo the partition count', () => {
    // -973932308 & 0x7fffffff = 1173551340
    expect(partitionOf('21', 4)).toBe(1173551340 % 4);
    expect(partitionOf('foobar', 8)).toBe((-790332482 & 0x7fffffff) % 8);
    expect(partitionOf('abc', 3)).toBe(479470107 % 3);
  });

  it("agrees with kafkajs's DefaultPartitioner for every key and count", () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 4, 8, 16]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
        partitionId,
        leader: 1,
        partitionErrorCode: 0,
        replicas: [1],
        isr: [1],
      }));
      const cached = new KeyPartitioner(partitions);
      for (let i = 0; i < 300; i++) {
        const key =
          i % 3 === 0 ? `0x${i.toString(16).padStart(40, '0')}` : i % 3 === 1 ? `SYM${i}USDT` : `ü-${i}`;
        const expected = kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } });
        expect(partitionOf(key, partitions)).toBe(expected);
        expect(cached.partition(key)).toBe(expected);
        expect(cached.partition(key)).toBe(expected);
      }
    }
  });

  it('refuses a partition count below one', () => {
    expect(() => new KeyPartitioner(0)).toThrow('bad partition count 0');
  });
});
