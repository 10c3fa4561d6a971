/**
 * `parse(key)` computed once per key object and kept while the key lives: for a market's figures
 * (decimal strings) parsed into Money, since markets and their brackets are replaced on a change,
 * never changed in place.
 */
export function parsedOnce<K extends object, V>(parse: (key: K) => V): (key: K) => V {
  const kept = new WeakMap<K, V>();
  return (key) => {
    let v = kept.get(key);
    if (v === undefined) kept.set(key, (v = parse(key)));
    return v;
  };
}
