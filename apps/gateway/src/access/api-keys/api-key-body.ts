import { parseIpWhitelist } from '@perp/auth';
import { NativeError } from '@perp/contracts';
import type { ApiKeyEntity, ApiKeyStatus } from '@perp/persistence';
import { z } from 'zod';
import { objectBody } from '../object-body';

/** Spec: "permissions always `trading,deposit`; no key can withdraw". */
export const API_KEY_PERMISSIONS = 'trading,deposit';
export const MAX_LABEL_LENGTH = 100;

const createSchema = z.object({
  label: z
    .string()
    .max(MAX_LABEL_LENGTH, `at most ${MAX_LABEL_LENGTH} characters`)
    // Postgres text refuses NUL; no control character belongs in a name anyway.
    .regex(/^\P{Cc}*$/u, 'no control characters')
    .optional()
    .meta({ description: 'Your name for the key (no control characters)' }),
  ip_whitelist: z
    .string()
    .optional()
    .meta({ description: 'Comma-separated IPs or CIDRs allowed to use the key; empty = any (INVALID_IP)' }),
});
const updateSchema = createSchema.extend({ status: z.enum(['active', 'disabled']).optional() });

/** The bodies as documented (the same schemas parse them). */
export const API_KEY_CREATE_BODY = createSchema.shape;
export const API_KEY_UPDATE_BODY = updateSchema.shape;

export interface ApiKeyInput {
  label?: string;
  /** Canonical form (parseIpWhitelist), '' = unrestricted. */
  ipWhitelist?: string;
  status?: ApiKeyStatus;
}

function parse(schema: typeof createSchema | typeof updateSchema, raw: unknown): ApiKeyInput {
  const parsed = schema.safeParse(objectBody(raw));
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new NativeError('INVALID_REQUEST', `Invalid request body: ${why}.`);
  }
  const body = parsed.data as z.infer<typeof updateSchema>;
  return {
    label: body.label,
    // Malformed → 400 INVALID_IP; stored and echoed in canonical form.
    ipWhitelist: body.ip_whitelist === undefined ? undefined : parseIpWhitelist(body.ip_whitelist).toString(),
    status: body.status,
  };
}

/** POST /api/v1/api-keys: `label`, `ip_whitelist`, both optional; other fields are ignored. */
export const parseCreateBody = (raw: unknown) => parse(createSchema, raw);
/** PUT /api/v1/api-keys/{id}: `label`, `ip_whitelist`, `status`, all optional. */
export const parseUpdateBody = (raw: unknown) => parse(updateSchema, raw);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that cannot name a key is simply not found (and never reaches the uuid column). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** An element of GET /api/v1/api-keys and the PUT response (never the secret). */
export interface ApiKeyView {
  id: string;
  api_key: string;
  label: string;
  ip_whitelist: string;
  permissions: typeof API_KEY_PERMISSIONS;
  created_at: string;
  last_used_at: string | null;
  status: ApiKeyStatus;
}

/** The POST response: the only place the secret is ever shown. */
export interface CreatedApiKeyView {
  id: string;
  api_key: string;
  secret_key: string;
  label: string;
  ip_whitelist: string;
  permissions: typeof API_KEY_PERMISSIONS;
  created_at: string;
  status: ApiKeyStatus;
}

/** `lastUsedMs`: a use not yet written to the database, when newer than the stored one. */
export function apiKeyView(entity: ApiKeyEntity, lastUsedMs?: number): ApiKeyView {
  const stored = entity.lastUsedAt?.getTime() ?? 0;
  const latest = Math.max(stored, lastUsedMs ?? 0);
  return {
    id: entity.id,
    api_key: entity.apiKey,
    label: entity.label,
    ip_whitelist: entity.ipWhitelist,
    permissions: API_KEY_PERMISSIONS,
    created_at: entity.createdAt.toISOString(),
    last_used_at: latest > 0 ? new Date(latest).toISOString() : null,
    status: entity.status,
  };
}
