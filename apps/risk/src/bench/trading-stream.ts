/**
 * A risk partition's input stream for the replay benchmark and the replay specs: two funded users
 * (`deposit`), then, in cycles of four, each user's LIMIT order and the engine's two copies of the
 * trade between them (maker and taker settlement; the positions open and close in turn). Also
 * snapshots kept in memory, as the Postgres repository keeps them.
 */
import { outputId, type RiskCommand, TOPICS } from '@perp/contracts';

export const T0 = 1_700_000_000_000;
export const ALICE = '0x00000000000000000000000000000000000000aa';
export const BOB = '0x00000000000000000000000000000000000000bb';
const SYMBOL = 'BTCUSDT';
const QTY = '0.001';

const oid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const tid = (n: number) => `11111111-1111-5111-8111-${String(n).padStart(12, '0')}`;

export type Snapshot = { offset: string; state: Buffer; version: number; createdAt: Date };

/** Snapshots in memory, as the Postgres repository stores them (latest by offset). */
export class MemorySnapshots {
  private readonly rows = new Map<string, Snapshot>();
  async latest(topic: string, partition: number) {
    return this.rows.get(`${topic}/${partition}`);
  }
  async save(s: { topic: string; partition: number; offset: string; state: Buffer; version?: number }) {
    this.rows.set(`${s.topic}/${s.partition}`, {
      offset: s.offset,
      state: s.state,
      version: s.version ?? 1,
      createdAt: new Date(),
    });
  }
  async prune() {
    return 0;
  }
  copy(): Map<string, Snapshot> {
    return new Map(this.rows);
  }
  restore(rows: Map<string, Snapshot>): void {
    this.rows.clear();
    for (const [k, v] of rows) this.rows.set(k, v);
  }
}

/** Input `i` of the stream after the two deposits: see the header. */
export function command(i: number): RiskCommand {
  const cycle = Math.floor(i / 4);
  const step = i % 4;
  const opening = cycle % 2 === 0;
  const aliceSide = opening ? 'BUY' : 'SELL';
  const bobSide = opening ? 'SELL' : 'BUY';
  const envelope = { id: `bench-${i}`, v: 1 as const, time: T0 + i };
  if (step < 2) {
    const alice = step === 0;
    return {
      ...envelope,
      type: 'order.new',
      orderId: oid(2 * cycle + step),
      clientOrderId: `c${2 * cycle + step}`,
      user: alice ? ALICE : BOB,
      symbol: SYMBOL,
      side: alice ? aliceSide : bobSide,
      orderType: 'LIMIT',
      timeInForce: 'GTC',
      quantity: QTY,
      price: '60000',
      reduceOnly: false,
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      selfTradePreventionMode: 'EXPIRE_TAKER',
    } as RiskCommand;
  }
  const close = opening ? '0' : QTY;
  const open = opening ? QTY : '0';
  const event = {
    id: outputId(TOPICS.engineCommands.name, 0, String(cycle), 0),
    v: 1 as const,
    time: T0 + i,
    type: 'trade' as const,
    symbol: SYMBOL,
    seq: cycle + 1,
    tradeId: tid(cycle),
    price: '60000',
    qty: QTY,
    maker: { user: BOB, orderId: oid(2 * cycle + 1), side: bobSide, split: { open, close } },
    taker: { user: ALICE, orderId: oid(2 * cycle), side: aliceSide, split: { open, close } },
  };
  const maker = step === 2;
  return {
    ...envelope,
    type: 'engine.event',
    source: { partition: 0, offset: String(cycle), index: maker ? 0 : 1 },
    liquidity: maker ? 'MAKER' : 'TAKER',
    event,
  } as RiskCommand;
}

export function deposit(user: string, i: number): RiskCommand {
  return {
    id: `dep-${user}`,
    v: 1,
    time: T0 - 10 + i,
    type: 'deposit',
    user,
    asset: 'USDT',
    amount: '100000000',
    actor: 'bench',
  } as RiskCommand;
}
