import { SetMetadata } from '@nestjs/common';
import type { FapiErrorName, NativeErrorCode } from '@perp/contracts';
import type { z } from 'zod';

/** What a route's OpenAPI operation says besides its inputs (which come from the parsing schemas). */
export interface ApiDocSpec {
  summary: string;
  description?: string;
  tag: string;
  /** The success body; omitted = an empty object `{}`. */
  response?: z.ZodType;
  /** Success status (default 200). */
  status?: number;
  /** FAPI error names (FAPI routes) or native codes (native routes) the route answers with. */
  errors?: readonly (FapiErrorName | NativeErrorCode)[];
  /**
   * A native body or query parsed outside the handler's arguments (a service or helper reading it
   * with these same schemas); routes with `@NativeBody`/`@NativeQuery`/`@FapiInput` need none.
   */
  body?: Record<string, z.ZodType>;
  query?: Record<string, z.ZodType>;
  /** Path parameters, by name (native routes). */
  path?: Record<string, z.ZodType>;
  /** A content type other than JSON (the Prometheus text, the reference page). */
  contentType?: string;
}

export const API_DOC = 'perp:api-doc';

/** The route's documentation; every route the gateway serves has one (the OpenAPI test checks). */
export const ApiDoc = (spec: ApiDocSpec) => SetMetadata(API_DOC, spec);
