import { fapiParam as P } from '@perp/contracts';
import { z } from 'zod';
import type { JsonSchema } from './json-schemas';
import type { DeclaredRoute } from './routes';
import type { Surface } from './surfaces';

/** The parameters every signed FAPI request adds (checked by SignedRequestGuard before the handler). */
export const SIGNED_PARAMS = {
  timestamp: P.int('Client time in ms; more than 60 s from the server time is -1021', 0),
  recvWindow: P.int('Accepted and ignored: the window is a fixed ±60 s', 1).optional(),
  signature: P.text(
    'Hex HMAC-SHA256, keyed with the API secret, of the raw query string (without `signature`) followed ' +
      'by the raw body bytes (docs/api-overview.md)',
  ),
};

const apiKey = {
  type: 'apiKey',
  in: 'header',
  name: 'X-MBX-APIKEY',
  description: 'API key; signed routes also need `timestamp` and `signature` (docs/api-overview.md).',
};

export const DOCUMENTS: Record<
  Surface,
  {
    info: { title: string; version: string; description: string };
    tags: { name: string; description: string }[];
    securitySchemes: Record<string, JsonSchema>;
  }
> = {
  fapi: {
    info: {
      title: 'perp-exchange FAPI (Binance USDⓈ-M compatible)',
      version: '1',
      description:
        'Binance USDⓈ-M futures compatible routes (`/fapi`, `/futures/data`). Parameters go in the query, a form ' +
        'body or a JSON body. Amounts are decimal strings, times ms since the epoch. Errors: `{code, msg}`, and ' +
        '`{success:false, data:null, error:{code,message}, timestamp}` for authentication. See docs/api-overview.md ' +
        'for signing, limits and error tables. Generated from the schemas that parse the requests.',
    },
    tags: [
      { name: 'general', description: 'Server time and exchange information' },
      { name: 'market', description: 'Public market data' },
      { name: 'orders', description: 'Order entry (signed, TRADE)' },
      { name: 'account', description: 'Account, positions and history (signed, USER_DATA)' },
      { name: 'settings', description: 'Account settings (signed, TRADE)' },
      { name: 'user-stream', description: 'listenKey (API key only)' },
    ],
    securitySchemes: { apiKey },
  },
  native: {
    info: {
      title: 'perp-exchange native API',
      version: '1',
      description:
        'Wallet login and JWT (`/api/v1`), operator routes (`/admin/v1`, bearer ADMIN_TOKEN), health probes, ' +
        'metrics and these documents. Amounts are decimal strings; times ISO 8601 UTC. Errors: `{error, code}`. ' +
        'Generated from the schemas that parse the requests.',
    },
    tags: [
      { name: 'auth', description: 'Wallet (EIP-712) login' },
      { name: 'api-keys', description: 'API keys for FAPI' },
      { name: 'markets', description: 'Markets and open interest' },
      { name: 'orders', description: 'Order entry and queries' },
      { name: 'account', description: 'Balances, positions, margin mode, collateral' },
      { name: 'admin', description: 'Operator routes' },
      { name: 'operations', description: 'Probes and metrics (every app serves them)' },
      { name: 'docs', description: 'These documents and the reference page' },
    ],
    securitySchemes: {
      jwt: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'From POST /api/v1/auth/login',
      },
      adminToken: { type: 'http', scheme: 'bearer', description: 'The deployment’s ADMIN_TOKEN' },
    },
  },
};

const probe = (path: string, summary: string, response: z.ZodType, contentType?: string): DeclaredRoute => ({
  method: 'get',
  path,
  controller: Object,
  handler: () => undefined,
  guards: [],
  doc: { tag: 'operations', summary, response, ...(contentType ? { contentType } : {}) },
});

/** Routes libs/runtime adds to every app (outside the gateway's controllers): documented here. */
export const OPERATION_ROUTES: DeclaredRoute[] = [
  probe('/healthz', 'Liveness: the process answers', z.object({ status: z.literal('ok') })),
  probe(
    '/readyz',
    'Readiness: 200 once adapters are connected and state restored, else 503 with the failing checks',
    z.object({ status: z.enum(['ready', 'not ready']) }).catchall(z.unknown()),
  ),
  probe('/metrics', 'Prometheus text exposition', z.string(), 'text/plain'),
];
