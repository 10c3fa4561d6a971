import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';

/**
 * A topic's zod schema compiled to a plain validator (Ajv, from zod's own JSON Schema of it): it
 * accepts a value only when the zod parse would return that same value, field for field, so a
 * consumer can take the value as it is instead of zod's copy. Ajv's generated code checks a
 * message several times faster than the parse and allocates nothing; what it refuses (a bad value,
 * or an extra key the parse would strip) still goes to zod, which decides and words the error.
 *
 * Only schemas built from the kinds listed below compile (the topics use no others): a
 * refinement, transform, default or regex flag has no exact JSON Schema, so a schema holding one
 * gets no compiled validator and every value goes through zod. Both count string lengths in code
 * points; Ajv is told to run patterns without the `u` flag, as zod does.
 */
export type CompiledCheck = (value: unknown) => boolean;

const KINDS = new Set([
  'object',
  'string',
  'number',
  'boolean',
  'literal',
  'enum',
  'optional',
  'nullable',
  'array',
  'tuple',
  'union',
  'record',
  'unknown',
]);
const CHECKS = new Set(['min_length', 'max_length', 'length_equals', 'greater_than', 'less_than']);
const NUMBER_FORMATS = new Set(['safeint']);

interface ZodDef {
  type: string;
  checks?: { _zod: { def: { check: string; format?: string; pattern?: RegExp } } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: z.ZodType[];
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Why `schema` has no exact JSON Schema (the first part found), or undefined when it has one. */
export function inexactPart(
  schema: z.ZodType,
  path = '(root)',
  seen = new Set<z.ZodType>(),
): string | undefined {
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const d = defOf(schema);
  if (!KINDS.has(d.type)) return `${path}: ${d.type}`;
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'string_format') {
      if (!(cd.pattern instanceof RegExp) || cd.pattern.flags !== '') return `${path}: format ${cd.format}`;
    } else if (cd.check === 'number_format') {
      if (!NUMBER_FORMATS.has(cd.format ?? '')) return `${path}: number format ${cd.format}`;
    } else if (!CHECKS.has(cd.check)) return `${path}: check ${cd.check}`;
  }
  if (d.catchall && defOf(d.catchall).type !== 'never') return `${path}: catchall`;
  // zod 4 requires every key of an enum-keyed record; only plain string keys say the same in JSON.
  if (d.keyType && (defOf(d.keyType).type !== 'string' || defOf(d.keyType).checks?.length))
    return `${path}: record keys`;
  if (d.rest) return `${path}: tuple rest`;
  const children: [string, z.ZodType | undefined][] = [
    ...Object.entries(d.shape ?? {}),
    ...(d.options ?? []).map((o, i) => [`|${i}`, o] as [string, z.ZodType]),
    ...(d.items ?? []).map((o, i) => [`[${i}]`, o] as [string, z.ZodType]),
    ['?', d.innerType],
    ['[]', d.element],
    ['{key}', d.keyType],
    ['{value}', d.valueType],
  ];
  for (const [name, child] of children) {
    const why = child && inexactPart(child, `${path}.${name}`, seen);
    if (why) return why;
  }
  return undefined;
}

const ajv = new Ajv2020({
  // zod's JSON Schema carries `format` beside the pattern that decides (uuid): the pattern checks.
  validateFormats: false,
  strict: false,
  discriminator: true,
  unicodeRegExp: false,
  inlineRefs: false,
});

/** The compiled check of `schema`, or undefined when it has parts JSON Schema cannot say exactly. */
export function compileSchema(schema: z.ZodType): CompiledCheck | undefined {
  if (inexactPart(schema)) return undefined;
  // Output mode: objects that strip unknown keys get `additionalProperties: false`, so a value
  // with one is left to the parse (whose copy drops it).
  try {
    const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as JsonNode;
    if (!patternsDecide(json)) return undefined;
    addDiscriminators(json);
    return ajv.compile(json);
  } catch {
    // A part zod cannot put in JSON Schema (an undefined literal, say) or Ajv cannot compile.
    return undefined;
  }
}

type JsonNode = Record<string, unknown>;

function eachNode(node: unknown, visit: (n: JsonNode) => boolean): boolean {
  if (Array.isArray(node)) return node.every((n) => eachNode(n, visit));
  if (typeof node !== 'object' || node === null) return true;
  if (!visit(node as JsonNode)) return false;
  return Object.values(node).every((n) => eachNode(n, visit));
}

/** Every `format` comes with the pattern that checks it (formats themselves are not checked). */
function patternsDecide(json: JsonNode): boolean {
  return eachNode(json, (n) => typeof n['format'] !== 'string' || typeof n['pattern'] === 'string');
}

/**
 * A discriminated union's `oneOf`, where every branch requires one property to be a distinct
 * constant, gets Ajv's `discriminator`: the branch is picked by that value, not found by trying
 * all. Its branches move to `$defs` (compiled as functions of their own, `inlineRefs: false`): one
 * function holding a whole topic's union is too big for V8 to optimise, and ran 4 to 7 times slower.
 */
function addDiscriminators(json: JsonNode): void {
  const defs = (json['$defs'] as JsonNode | undefined) ?? {};
  let next = 0;
  const visit = (n: JsonNode): boolean => {
    const branches = n['oneOf'];
    const tag = Array.isArray(branches) && discriminatingProperty(branches as JsonNode[]);
    if (!tag) return true;
    n['discriminator'] = { propertyName: tag };
    n['type'] ??= 'object';
    n['required'] = [...new Set([...((n['required'] as string[] | undefined) ?? []), tag])];
    n['oneOf'] = (branches as JsonNode[]).map((b) => {
      while (`branch${next}` in defs) next++;
      const name = `branch${next}`;
      defs[name] = b;
      eachNode(b, visit);
      return { $ref: `#/$defs/${name}` };
    });
    return true;
  };
  eachNode(json, visit);
  if (Object.keys(defs).length) json['$defs'] = defs;
}

function discriminatingProperty(branches: JsonNode[]): string | undefined {
  if (branches.length < 2) return undefined;
  const first = branches[0]?.['properties'] as Record<string, JsonNode> | undefined;
  for (const name of Object.keys(first ?? {})) {
    const values = branches.map((b) => {
      const p = (b['properties'] as Record<string, JsonNode> | undefined)?.[name];
      const required = (b['required'] as string[] | undefined)?.includes(name);
      return required && p && typeof p['const'] === 'string' ? p['const'] : undefined;
    });
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length) return name;
  }
  return undefined;
}

/** Equal as plain data: same own string keys (an undefined value counts), same values. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
