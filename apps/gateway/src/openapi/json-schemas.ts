import { z } from 'zod';

export type JsonSchema = { [keyword: string]: unknown };

/**
 * JSON Schemas of zod schemas for one OpenAPI document: named schemas (`.meta({ id })`) become
 * `#/components/schemas/<id>` and are collected once; requests are documented as their input
 * (what a client sends), responses as their output.
 */
export class SchemaSet {
  readonly components: Record<string, JsonSchema> = {};

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
    }) as JsonSchema;
    const text = JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/');
    const {
      $schema: _,
      $defs,
      ...rest
    } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, def] of Object.entries($defs ?? {})) this.components[id] ??= def;
    return rest;
  }
}

/** Whether a parameter schema can be left out (optional or with a default). */
export function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}
