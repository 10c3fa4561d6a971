import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAsyncApi } from './asyncapi';
import { MessageValidationError, parseMessage, TOPICS, topicConfigs, topicPartitions } from './topics';

const user = '0x' + 'ab'.repeat(20);

describe('topic contract', () => {
  it('names are unique and versioned', () => {
    const names = Object.values(TOPICS).map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/\.v\d+$/);
    expect(topicPartitions()['perp.engine.commands.v1']).toBe(8);
  });

  it('the markets topic is compacted (read from the start on every boot) and replies expire after an hour', () => {
    expect(topicConfigs()).toEqual({
      'perp.markets.v1': { 'cleanup.policy': 'compact' },
      'perp.replies.v1': { 'retention.ms': '3600000' },
    });
    const channels = buildAsyncApi('1').channels as Record<string, { bindings: { kafka: object } }>;
    expect(channels['markets']!.bindings.kafka).toMatchObject({
      topicConfiguration: { 'cleanup.policy': ['compact'] },
    });
    expect(channels['replies']!.bindings.kafka).toMatchObject({
      topicConfiguration: { 'retention.ms': 3600000 },
    });
  });

  it('accepts a valid engine command and refuses a malformed one with the field named', () => {
    const cancel = { id: 'c-1', v: 1, time: 1, type: 'order.cancelAll', user, symbol: 'BTCUSDT' };
    expect(parseMessage('engineCommands', cancel)).toEqual(cancel);
    expect(() => parseMessage('engineCommands', { ...cancel, symbol: 'btc-usd' })).toThrow(
      MessageValidationError,
    );
    expect(() => parseMessage('engineCommands', { ...cancel, v: 2 })).toThrow(/v:/);
    expect(() => parseMessage('engineCommands', { ...cancel, type: 'order.nuke' })).toThrow(
      MessageValidationError,
    );
  });

  it('money fields are decimal strings, never numbers', () => {
    const deposit = {
      id: 'd',
      v: 1,
      time: 1,
      type: 'deposit',
      user,
      asset: 'USDT',
      amount: '10.5',
      actor: 'admin',
    };
    expect(parseMessage('riskCommands', deposit)).toEqual(deposit);
    expect(() => parseMessage('riskCommands', { ...deposit, amount: 10.5 })).toThrow(/amount/);
    expect(() => parseMessage('riskCommands', { ...deposit, amount: '1e3' })).toThrow(/amount/);
  });

  it('parses an engine event once and shares the parse, frozen under test; commands each time', () => {
    const event = {
      id: 'e-1',
      v: 1,
      time: 1,
      type: 'book.top',
      symbol: 'BTCUSDT',
      seq: 3,
      bidPrice: '65000',
      bidQty: '0.001',
      askPrice: '65001',
      askQty: '0.002',
    };
    const first = parseMessage('engineEvents', event);
    expect(parseMessage('engineEvents', event)).toBe(first);
    // Exactly its own parse: the value itself (see compiled-schemas.ts), frozen all the same.
    expect(first).toBe(event);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { symbol: string }).symbol = 'ETHUSDT';
    }).toThrow(TypeError);
    // An extra key: zod's copy without it, made again on every parse of a command.
    const cancel = { id: 'c-2', v: 1, time: 1, type: 'order.cancelAll', user, symbol: 'BTCUSDT', extra: 1 };
    const { extra: _extra, ...stripped } = cancel;
    expect(parseMessage('engineCommands', cancel)).toEqual(stripped);
    expect(parseMessage('engineCommands', cancel)).not.toBe(parseMessage('engineCommands', cancel));
    const bad = { ...event, v: 2 };
    expect(() => parseMessage('engineEvents', bad)).toThrow(/v:/);
    expect(() => parseMessage('engineEvents', bad)).toThrow(/v:/);
  });
});

describe('values the memory bus handed over in process', () => {
  const order = () => ({
    id: 'c-3',
    v: 1,
    time: 1,
    type: 'order.cancelAll',
    user,
    symbol: 'BTCUSDT',
  });

  it('are returned as they are on the order-path topics (checked against their parse under test)', () => {
    const value = order();
    expect(parseMessage('engineCommands', value, true)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    // Without the mark (Kafka, the journal replayed on start, cloneValues) it is checked: a value
    // that is exactly its parse is taken as it is, one with an extra key becomes zod's copy.
    const plain = order();
    expect(parseMessage('engineCommands', plain)).toBe(plain);
    const extra = { ...order(), extra: 1 };
    expect(parseMessage('engineCommands', extra)).toEqual(order());
  });

  it('still fail the tests when invalid or when they differ from their parse', () => {
    expect(() => parseMessage('engineCommands', { ...order(), symbol: 'btc-usd' }, true)).toThrow(
      MessageValidationError,
    );
    expect(() => parseMessage('engineCommands', { ...order(), extra: 1 }, true)).toThrow(
      /differs from its parse/,
    );
  });

  it('are checked on the topics not in the order path', () => {
    const tick = { id: 'k-1', v: 1, time: 1, type: 'clock.tick' };
    expect(TOPICS.clock.schema.safeParse(tick).success).toBe(true);
    const value = { ...tick };
    expect(parseMessage('clock', value, true)).toBe(value);
    expect(parseMessage('clock', { ...tick, extra: 1 }, true)).toEqual(tick);
    expect(() => parseMessage('clock', { ...tick, time: -1 }, true)).toThrow(MessageValidationError);
  });
});

describe('AsyncAPI document', () => {
  const file = join(__dirname, '..', '..', 'asyncapi.json');

  it('describes every topic with its schema', () => {
    const doc = buildAsyncApi('1');
    expect(Object.keys(doc.channels)).toEqual(Object.keys(TOPICS));
    expect(JSON.stringify(doc.components.messages.engineEvents)).toContain('order.accepted');
  });

  it('the checked-in libs/contracts/asyncapi.json is the generated one (regenerate with UPDATE_ASYNCAPI=1)', () => {
    const generated = JSON.stringify(buildAsyncApi('1'), null, 2) + '\n';
    if (process.env.UPDATE_ASYNCAPI === '1') writeFileSync(file, generated);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(generated);
  });
});
