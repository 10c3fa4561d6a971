// kafkajs's murmur2 (its DefaultPartitioner's hash, ported from the Java client); not in its typings.
declare module 'kafkajs/src/producer/partitioners/default/murmur2' {
  function murmur2(key: string | Buffer): number;
  export = murmur2;
}
