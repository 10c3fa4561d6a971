import { randomBytes } from 'node:crypto';

/** A new key pair: `apiKey` goes in X-MBX-APIKEY, `secretKey` is shown once and stored encrypted. */
export interface GeneratedApiKey {
  apiKey: string;
  secretKey: string;
}

/** Both halves are 32 random bytes as 64 lowercase hex digits (spec: "API key" fields). */
export function generateApiKey(): GeneratedApiKey {
  return { apiKey: randomBytes(32).toString('hex'), secretKey: randomBytes(32).toString('hex') };
}

/** Shape check for an X-MBX-APIKEY header before any lookup. */
export function isApiKeyFormat(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}
