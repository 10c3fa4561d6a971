import fc from 'fast-check';
import { z } from 'zod';
import { compileSchema, inexactPart, sameJson } from './compiled-schemas';
import { TOPICS, type TopicId } from './topics';

type Def = {
  type: string;
  checks?: {
    _zod: {
      def: {
        check: string;
        format?: string;
        pattern?: RegExp;
        minimum?: number;
        maximum?: number;
        value?: number;
        inclusive?: boolean;
      };
    };
  }[];
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  items?: z.ZodType[];
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string>;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Values zod accepts unchanged, generated from the schema itself (the kinds the topics use). */
function valid(schema: z.ZodType): fc.Arbitrary<unknown> {
  const d = defOf(schema);
  const checks = (d.checks ?? []).map((c) => c._zod.def);
  switch (d.type) {
    case 'object': {
      const shape = d.shape!;
      const required = Object.keys(shape).filter((k) => defOf(shape[k]!).type !== 'optional');
      return fc.record(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, valid(v)])), {
        requiredKeys: required,
      });
    }
    case 'optional':
      return valid(d.innerType!);
    case 'nullable':
      return fc.option(valid(d.innerType!), { nil: null });
    case 'string': {
      const pattern = checks.find((c) => c.pattern)?.pattern;
      const min = checks.find((c) => c.check === 'min_length')?.minimum ?? 0;
      const max = checks.find((c) => c.check === 'max_length')?.maximum ?? (pattern ? Infinity : 40);
      const base = pattern
        ? fc.stringMatching(pattern)
        : fc.string({ minLength: min, maxLength: max, unit: 'binary' });
      return base.filter((s) => s.length >= min && s.length <= max);
    }
    case 'number': {
      if (!checks.some((c) => c.format === 'safeint'))
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      const low = checks.find((c) => c.check === 'greater_than');
      const high = checks.find((c) => c.check === 'less_than');
      return fc.integer({
        min: low ? low.value! + (low.inclusive ? 0 : 1) : Number.MIN_SAFE_INTEGER,
        max: high ? high.value! - (high.inclusive ? 0 : 1) : Number.MAX_SAFE_INTEGER,
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'literal':
      return fc.constantFrom(...d.values!);
    case 'enum':
      return fc.constantFrom(...Object.values(d.entries!));
    case 'union':
      return fc.oneof(...d.options!.map(valid));
    case 'array':
      return fc.array(valid(d.element!), { maxLength: 3 });
    case 'tuple':
      return fc.tuple(...d.items!.map(valid));
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 6 }), valid(d.valueType!), { maxKeys: 3 });
    case 'unknown':
      return fc.jsonValue({ maxDepth: 2 });
    default:
      throw new Error(`no generator for ${d.type}`);
  }
}

const DELETE = Symbol('delete');
const EXTRA = Symbol('extra');

/** Values zod might refuse or change: the edges of what the topics' checks test. */
const edges = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    -1,
    -0,
    1.5,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    '',
    '1e3',
    ' 1',
    '01',
    '-0.5',
    '\u{1F600}'.repeat(37),
    '\u{1F600}'.repeat(33),
    '\u{1F600}'.repeat(19),
    '\uD800'.repeat(2),
    'x'.repeat(37),
    'x'.repeat(36),
    'BTC-USDT',
    '0x' + 'AB'.repeat(20),
    '00000000-0000-0000-0000-000000000000',
    '123e4567-e89b-02d3-a456-426614174000',
    null,
    true,
    [],
    {},
  ),
);

/** `value` with the node at path number `n` (depth first) deleted, given an extra key, or replaced. */
function mutate(value: unknown, n: number, change: unknown): unknown {
  const root = structuredClone(value);
  const places: [Record<string | number, unknown>, string | number][] = [];
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    for (const k of Object.keys(node)) {
      const key = Array.isArray(node) ? Number(k) : k;
      places.push([node as Record<string | number, unknown>, key]);
      walk((node as Record<string, unknown>)[k]);
    }
  };
  walk(root);
  if (places.length === 0) return change;
  const [parent, key] = places[n % places.length]!;
  if (change === DELETE) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (change === EXTRA) {
    if (Array.isArray(parent)) parent.push('extra');
    else parent['extra'] = 1;
  } else parent[key] = change;
  return root;
}

const topics = Object.keys(TOPICS) as TopicId[];

describe('compiled topic schemas', () => {
  it.each(topics)('%s compiles (every topic uses only kinds JSON Schema says exactly)', (topic) => {
    expect(inexactPart(TOPICS[topic].schema)).toBeUndefined();
    expect(compileSchema(TOPICS[topic].schema)).toBeInstanceOf(Function);
  });

  it.each(topics)(
    '%s: accepts what zod returns unchanged, refuses the rest (generated and mutated values)',
    (topic) => {
      const schema = TOPICS[topic].schema;
      const check = compileSchema(schema)!;
      const agrees = (v: unknown) => {
        const parsed = schema.safeParse(v);
        // Key order aside (the parse copies in schema order), the very same data.
        const exact = parsed.success && sameJson(parsed.data, v);
        if (check(v) !== exact)
          throw new Error(
            `compiled ${check(v)}, zod ${parsed.success ? (exact ? 'same' : 'changed') : 'refused'}: ${JSON.stringify(v)}`,
          );
      };
      fc.assert(
        fc.property(valid(schema), (v) => {
          expect(check(v)).toBe(true);
          agrees(v);
        }),
        { numRuns: 300 },
      );
      fc.assert(
        fc.property(
          valid(schema),
          fc.nat(),
          fc.oneof(fc.constant(DELETE), fc.constant(EXTRA), edges),
          (v, n, change) => agrees(mutate(v, n, change)),
        ),
        { numRuns: 1500 },
      );
    },
  );

  it('compileMessageChecks compiles every topic once, and parses then compile nothing more', () => {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Ajv = (require('ajv/dist/2020') as { default: { prototype: { compile: () => unknown } } })
        .default;
      const compile = jest.spyOn(Ajv.prototype, 'compile');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const t = require('./topics') as typeof import('./topics');
      t.compileMessageChecks();
      expect(compile).toHaveBeenCalledTimes(topics.length);
      t.compileMessageChecks();
      expect(() => t.parseMessage('clock', { id: 'k', v: 1, time: 1, type: 'clock.tick' })).not.toThrow();
      expect(compile).toHaveBeenCalledTimes(topics.length);
      compile.mockRestore();
    });
  });

  it('counts lengths in code points and runs patterns without the u flag, as zod does', () => {
    const check = compileSchema(z.object({ id: z.string().max(36), s: z.string().regex(/^[a-z]$/) }))!;
    // 36 emoji are 72 UTF-16 units but 36 code points: within zod's 36; 37 are not.
    expect(check({ id: '\u{1F600}'.repeat(36), s: 'a' })).toBe(true);
    expect(check({ id: '\u{1F600}'.repeat(37), s: 'a' })).toBe(false);
    expect(z.string().max(36).safeParse('\u{1F600}'.repeat(36)).success).toBe(true);
    expect(check({ id: 'x', s: '\u{1F600}' })).toBe(false);
  });

  it('leaves unknown keys and unsafe integers to zod', () => {
    const check = compileSchema(z.object({ n: z.number().int().nonnegative() }))!;
    expect(check({ n: Number.MAX_SAFE_INTEGER })).toBe(true);
    expect(check({ n: 2 ** 53 })).toBe(false);
    expect(check({ n: 1, other: 2 })).toBe(false);
  });

  it('does not compile what JSON Schema cannot say exactly: zod decides those', () => {
    const inexact: z.ZodType[] = [
      z.object({ a: z.string().refine((s) => s !== 'x') }),
      z.object({ a: z.string().transform((s) => s.trim()) }),
      z.object({ a: z.string().default('x') }),
      z.object({ a: z.string().regex(/^a$/i) }),
      z.object({ a: z.string() }).passthrough(),
      z.object({ a: z.date() }),
      z.tuple([z.string()], z.number()),
      z.record(z.enum(['a', 'b']), z.number()),
      z.object({ a: z.literal(undefined) }),
    ];
    for (const s of inexact) expect(compileSchema(s)).toBeUndefined();
    for (const s of inexact.slice(0, -1)) expect(inexactPart(s)).toEqual(expect.any(String));
    expect(compileSchema(z.object({ a: z.string() }).strict())).toBeInstanceOf(Function);
  });

  it('picks a discriminated union branch by its tag', () => {
    const check = compileSchema(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('a'), x: z.string() }),
        z.object({ type: z.literal('b'), y: z.number() }),
      ]),
    )!;
    expect(check({ type: 'a', x: 's' })).toBe(true);
    expect(check({ type: 'b', y: 1 })).toBe(true);
    expect(check({ type: 'a', y: 1 })).toBe(false);
    expect(check({ type: 'c' })).toBe(false);
    expect(check({ x: 's' })).toBe(false);
  });

  it('keeps each branch of nested unions under its own tag (branches compile apart)', () => {
    const inner = z.discriminatedUnion('type', [
      z.object({ type: z.literal('x'), n: z.number() }),
      z.object({ type: z.literal('y'), s: z.string() }),
    ]);
    const check = compileSchema(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('a'), x: z.string() }),
        z.object({ type: z.literal('wrap'), inner }),
        z.object({ type: z.literal('b'), y: z.number() }),
      ]),
    )!;
    expect(check({ type: 'wrap', inner: { type: 'x', n: 1 } })).toBe(true);
    expect(check({ type: 'wrap', inner: { type: 'y', s: 's' } })).toBe(true);
    expect(check({ type: 'wrap', inner: { type: 'y', n: 1 } })).toBe(false);
    expect(check({ type: 'b', y: 2 })).toBe(true);
    expect(check({ type: 'a', x: 's' })).toBe(true);
  });
});
