import { type EngineCommand, type EngineEvent, outputId } from '@perp/contracts';
import { adlQuantiles, type AdlPosition, type MarketRegistry, rankForAdl } from '@perp/domain';
import { bookFor, type CommandOutput } from './book-commands';
import type { InputPlace } from './engine-events';
import type { EnginePartition, SymbolBook } from './engine-partition';
import { refusal } from './engine-replies';

export type AdlScoresCommand = Extract<EngineCommand, { type: 'adl.scores' }>;

/** The quantiles of a symbol without positions: what "nothing published yet" equals. */
const NONE = JSON.stringify({ long: [], short: [] });

/**
 * The ADL queues of a symbol from the book's positions (exact, the engine's own) and the latest
 * scores risk sent: `long` and `short` in deleveraging order (rankForAdl: score descending, users
 * without a score last, then by address).
 */
export function adlQueues(p: EnginePartition, sb: SymbolBook): { long: AdlPosition[]; short: AdlPosition[] } {
  const scores = new Map<string, string>();
  for (const list of p.adl.get(sb.symbol)?.scores.values() ?? []) for (const [u, s] of list) scores.set(u, s);
  const long: AdlPosition[] = [];
  const short: AdlPosition[] = [];
  for (const [id, lots] of sb.book.positions()) {
    const user = p.userAddress(id);
    const score = scores.get(user);
    const entry: AdlPosition = { user, lots: Math.abs(lots), ...(score === undefined ? {} : { score }) };
    (lots > 0 ? long : short).push(entry);
  }
  return { long: rankForAdl(long), short: rankForAdl(short) };
}

/**
 * `adl.scores`: the risk partition's list replaces its previous one for the symbol (an empty list
 * forgets it); then, when any quantile of the symbol's positions changed since the last
 * `adl.quantiles`, a new one with the whole symbol's lists. The caller dedupes by input offset and
 * origin, as for every forwarded command.
 */
export function applyAdlScores(
  p: EnginePartition,
  markets: MarketRegistry,
  at: InputPlace,
  cmd: AdlScoresCommand,
): CommandOutput {
  const sb = bookFor(p, markets, cmd.symbol);
  if (!sb) return { events: [], reply: refusal('INVALID_SYMBOL', `no market ${cmd.symbol}`) };
  const adl = p.adlOf(sb.symbol);
  if (cmd.scores.length === 0) adl.scores.delete(cmd.partition);
  else adl.scores.set(cmd.partition, new Map(cmd.scores.map((s) => [s.user, s.score])));
  const reply = { ok: true as const, result: { symbol: sb.symbol, partition: cmd.partition } };
  const events: EngineEvent[] = [];
  const q = adlQuantileEvent(p, sb, at, cmd.time, 0);
  if (q) events.push(q);
  return { events, reply };
}

/**
 * An `adl.quantiles` event (id index `index` of the input at `at`) when the symbol's quantiles
 * differ from the last ones published; remembers them. Undefined when unchanged.
 */
export function adlQuantileEvent(
  p: EnginePartition,
  sb: SymbolBook,
  at: InputPlace,
  time: number,
  index: number,
): EngineEvent | undefined {
  const adl = p.adlOf(sb.symbol);
  const { long, short } = adlQueues(p, sb);
  const lists = { long: adlQuantiles(long), short: adlQuantiles(short) };
  const key = JSON.stringify(lists);
  if (key === (adl.quantiles || NONE)) return undefined;
  adl.quantiles = key;
  return {
    v: 1,
    id: outputId(at.topic, at.partition, at.offset, index),
    time,
    type: 'adl.quantiles',
    symbol: sb.symbol,
    seq: sb.book.seq,
    ...lists,
  };
}
