// HTTP clients for end-to-end specs: plain requests, signed FAPI requests, wallet login.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { BaseWallet } from 'ethers';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Source address of the connection (any 127.x.y.z on Linux): a client other than the proxy. */
  localAddress?: string;
}

/** A plain HTTP request (node:http, so the source address can be chosen). */
export function http(url: string, o: HttpOptions = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = Buffer.byteLength(o.body);
    const req = httpRequest(
      url,
      // A fresh connection each time: a pooled socket the server has just closed would fail the test.
      { method: o.method ?? 'GET', headers, localAddress: o.localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

export function json(url: string, method: string, body?: unknown, token?: string): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return http(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export interface KeyPair {
  api_key: string;
  secret_key: string;
}

export interface SignedOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Query parameters before `timestamp` (strings, encoded here). */
  params?: Record<string, string>;
  /** Raw JSON body, appended to the signed payload verbatim (the spec's convention). */
  jsonBody?: string;
  timestamp?: number;
  /** Sign with this secret instead of the key's. */
  secret?: string;
  /** Replaces the payload that is signed (to sign something other than what is sent). */
  signedPayload?: (query: string, body: string) => string;
  headers?: Record<string, string>;
  localAddress?: string;
  omitTimestamp?: boolean;
}

/** A signed FAPI request as the spec describes: HMAC-SHA256 of query (+ raw JSON body on POST/PUT). */
export function signed(
  url: string,
  path: string,
  key: KeyPair,
  o: SignedOptions = {},
): Promise<HttpResponse> {
  const params = new URLSearchParams(o.params);
  if (!o.omitTimestamp) params.set('timestamp', String(o.timestamp ?? Date.now()));
  const query = params.toString();
  const body = o.jsonBody ?? '';
  const payload = o.signedPayload ? o.signedPayload(query, body) : query + body;
  const signature = createHmac('sha256', o.secret ?? key.secret_key)
    .update(payload)
    .digest('hex');
  const headers: Record<string, string> = key.api_key === '' ? {} : { 'x-mbx-apikey': key.api_key };
  Object.assign(headers, o.headers);
  if (o.jsonBody !== undefined) headers['content-type'] = 'application/json';
  const sep = query === '' ? '' : '&';
  return http(`${url}${path}?${query}${sep}signature=${signature}`, {
    method: o.method ?? 'GET',
    headers,
    body: o.jsonBody,
    localAddress: o.localAddress,
  });
}

/** Wallet login over HTTP: nonce, EIP-712 signature, token. */
export async function login(url: string, wallet: BaseWallet): Promise<string> {
  const address = wallet.address.toLowerCase();
  const nonce = await http(`${url}/api/v1/auth/nonce/${address}`);
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${nonce.text}`);
  const t = nonce.body.typed_data;
  const signature = await wallet.signTypedData(t.domain, t.types, t.message);
  const res = await json(`${url}/api/v1/auth/login`, 'POST', {
    address,
    signature,
    timestamp: t.message.timestamp,
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
  return res.body.token as string;
}

export async function createKey(
  url: string,
  token: string,
  body: unknown = {},
): Promise<KeyPair & { id: string }> {
  const res = await json(`${url}/api/v1/api-keys`, 'POST', body, token);
  if (res.status !== 200) throw new Error(`create key: ${res.status} ${res.text}`);
  return res.body;
}

/** The FAPI auth envelope with a given code. */
export function authError(code: string) {
  return {
    success: false,
    data: null,
    error: { code, message: expect.any(String) },
    timestamp: expect.any(Number),
  };
}

/** The native `{error, code}` envelope. */
export function nativeError(code: string) {
  return { error: expect.any(String), code };
}
