import { wholeNumber } from '@perp/runtime';
import { z } from 'zod';
import { loadOrCreateKeyFile } from '../secrets/key-file';
import { MasterKeyring, parseMasterKey } from '../secrets/secret-cipher';

/** Default JWT lifetime: one day, a session's worth; the client logs in again with its wallet. */
export const DEFAULT_JWT_TTL_SECONDS = 24 * 60 * 60;

/** Files in the data directory that hold generated secrets in embedded mode (mode 0600). */
export const MASTER_KEY_FILE = 'api-key-master.key';
export const JWT_SECRET_FILE = 'jwt-secret.key';

const masterKey = z.string().refine((v) => {
  try {
    parseMasterKey(v);
    return true;
  } catch {
    return false;
  }
}, '32 bytes as 64 hex digits or base64');

/** The environment variables this library reads; merge into the app's schema to validate at start. */
export const authEnvSchema = z.object({
  API_KEY_MASTER_KEY: masterKey.optional(),
  /** Comma-separated older master keys, still used to decrypt during a rotation. */
  API_KEY_MASTER_KEY_PREVIOUS: z
    .string()
    .default('')
    .refine((v) => v.trim() === '' || v.split(',').every((k) => masterKey.safeParse(k).success), {
      message: 'comma-separated keys, each 32 bytes as 64 hex digits or base64',
    }),
  JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  JWT_TTL_SECONDS: wholeNumber(60, 30 * 24 * 60 * 60).default(DEFAULT_JWT_TTL_SECONDS),
});

export interface AuthSecrets {
  masterKeys: MasterKeyring;
  jwtSecret: string;
  jwtTtlSeconds: number;
}

/**
 * The auth variables checked as loadAuthSecrets will read them, without reading or creating a file:
 * an app calls it before it builds its modules, so a bad value stops it with the message alone.
 * Throws `invalid configuration:` naming every bad variable, never its value.
 */
export function checkAuthEnv(env: NodeJS.ProcessEnv, options: { dataDir?: string } = {}): AuthEnv {
  const parsed = authEnvSchema.safeParse(env);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  if (parsed.success && options.dataDir === undefined)
    for (const name of ['API_KEY_MASTER_KEY', 'JWT_SECRET'] as const)
      if (parsed.data[name] === undefined) lines.push(`  ${name}: required when there is no data directory`);
  if (!parsed.success || lines.length > 0) throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  return parsed.data;
}

export type AuthEnv = z.output<typeof authEnvSchema>;

/**
 * Reads the auth variables; an unset API_KEY_MASTER_KEY or JWT_SECRET is generated once into
 * `dataDir` (embedded mode). Without `dataDir` (cluster mode: every gateway replica must share
 * them) both are required. Errors name the variable, never its value.
 */
export async function loadAuthSecrets(
  env: NodeJS.ProcessEnv = process.env,
  options: { dataDir?: string } = {},
): Promise<AuthSecrets> {
  const e = checkAuthEnv(env, options);
  // An unset one has its key file: checkAuthEnv required both when there is no data directory.
  const keyFile = (file: string) => loadOrCreateKeyFile(options.dataDir!, file);
  const current =
    e.API_KEY_MASTER_KEY !== undefined
      ? parseMasterKey(e.API_KEY_MASTER_KEY)
      : await keyFile(MASTER_KEY_FILE);
  const previous =
    e.API_KEY_MASTER_KEY_PREVIOUS.trim() === ''
      ? []
      : e.API_KEY_MASTER_KEY_PREVIOUS.split(',').map((k) => parseMasterKey(k, 'API_KEY_MASTER_KEY_PREVIOUS'));
  const jwtSecret = e.JWT_SECRET ?? (await keyFile(JWT_SECRET_FILE)).toString('hex');

  return { masterKeys: new MasterKeyring(current, previous), jwtSecret, jwtTtlSeconds: e.JWT_TTL_SECONDS };
}
