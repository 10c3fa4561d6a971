import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { arrayLiteral } from './bulk-insert';

describe('arrayLiteral (real Postgres reads it back)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
  });
  afterAll(() => db?.close());

  /** The literal read as `type`, then each element as Postgres writes it (text). */
  const readBack = async (literal: string, type: string): Promise<unknown[]> => {
    const rows = (await db.dataSource.query(`SELECT ($1::${type})::text[] AS a`, [literal])) as {
      a: unknown[];
    }[];
    return rows[0]!.a;
  };

  it('gives back every text as it was, quoting only what needs it', async () => {
    const texts = [
      'BTCUSDT',
      '65000.1',
      '-0.001',
      '0f6e1c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      '',
      'NULL',
      'null',
      'a b',
      ' lead',
      'a,b',
      '{x}',
      'say "hi"',
      'back\\slash',
      'ünïcödé',
      'tab\there',
      'new\nline',
    ];
    const literal = arrayLiteral(texts)!;
    expect(literal.startsWith('{BTCUSDT,65000.1,-0.001,0f6e1c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b,""')).toBe(true);
    expect(await readBack(literal, 'text[]')).toEqual(texts);
    expect(await readBack(arrayLiteral(['x', null, undefined, 'NULL'])!, 'text[]')).toEqual([
      'x',
      null,
      null,
      'NULL',
    ]);
  });

  it('writes numbers, decimals and booleans as Postgres reads them', async () => {
    expect(await readBack(arrayLiteral(['1.50', '-2', '0.000000000000000001'])!, 'numeric[]')).toEqual([
      '1.50',
      '-2',
      '0.000000000000000001',
    ]);
    expect(await readBack(arrayLiteral([1, 9007199254740993n, -3])!, 'int8[]')).toEqual([
      '1',
      '9007199254740993',
      '-3',
    ]);
    expect(await readBack(arrayLiteral([true, false, null])!, 'bool[]')).toEqual(['true', 'false', null]);
    expect(arrayLiteral([])).toBe('{}');
  });

  it('leaves other elements to pg (undefined)', () => {
    expect(arrayLiteral([new Date(0)])).toBeUndefined();
    expect(arrayLiteral(['a', { b: 1 }])).toBeUndefined();
  });
});
