import { NativeError, type NativeErrorCode } from '@perp/contracts';
import { z } from 'zod';

/**
 * Native request fields as zod schemas over JSON values: one schema parses a field (NativeFields)
 * and documents it (OpenAPI). A failing check carries the native code it answers with (`nativeIssue`).
 */
export type NativeShape = Record<string, z.ZodType>;

const SEP = '\u001f';

/** The message of a failing check: the native code and its text. */
export function nativeIssue(code: NativeErrorCode, msg: string): string {
  return code + SEP + msg;
}

/** Absent, null and "" are not sent. */
const absent = (v: unknown) => v === undefined || v === null || v === '';

/** A body or query's fields, read one at a time in the order the handler checks them. */
export class NativeFields<S extends NativeShape> {
  constructor(
    readonly shape: S,
    private readonly raw: unknown,
  ) {}

  /** The sent object (`{}` without a body); anything but an object is INVALID_REQUEST, on first read. */
  get values(): Record<string, unknown> {
    const raw = this.raw;
    if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw)))
      throw new NativeError('INVALID_REQUEST', 'Request body must be a JSON object.');
    return (raw ?? {}) as Record<string, unknown>;
  }

  /** Whether the field was sent (not absent, null or empty). */
  has(name: keyof S & string): boolean {
    return !absent(this.values[name]);
  }

  get<K extends keyof S & string>(name: K): z.output<S[K]> {
    const schema = this.shape[name];
    if (!schema) throw new Error(`field ${name} is not in the route's schema`);
    const v = this.values[name];
    const r = schema.safeParse(absent(v) ? undefined : v);
    if (r.success) return r.data;
    const [code, msg] = (r.error.issues[0]?.message ?? '').split(SEP);
    if (msg === undefined) throw new NativeError('INVALID_REQUEST', `${name}: ${code}`);
    throw new NativeError(code as NativeErrorCode, msg);
  }
}
