import { z } from 'zod';

export type JsonSchema = { [keyword: string]: unknown };

/**
 * JSON Schemas of zod schemas for one OpenAPI (2020-12) or AsyncAPI (draft-07) document: named
 * schemas (`.meta({ id })`) become `#/components/schemas/<id>` and are collected once; requests are
 * documented as their input (what a client sends), responses as their output.
 */
export class SchemaSet {
  readonly components: Record<string, JsonSchema> = {};

  constructor(private readonly target: 'draft-2020-12' | 'draft-7' = 'draft-2020-12') {}

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: this.target }) as JsonSchema;
    const defs = this.target === 'draft-7' ? 'definitions' : '$defs';
    const text = JSON.stringify(json).replaceAll(`"#/${defs}/`, '"#/components/schemas/');
    const { $schema: _, [defs]: found, ...rest } = JSON.parse(text) as JsonSchema;
    for (const [id, def] of Object.entries((found ?? {}) as Record<string, JsonSchema>))
      this.components[id] ??= def;
    return rest;
  }
}

/** Whether a parameter schema can be left out (optional or with a default). */
export function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}
