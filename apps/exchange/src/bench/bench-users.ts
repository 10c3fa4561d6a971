/**
 * Setting up a running exchange as a new user would, over HTTP only: wallet login (nonce, EIP-712
 * signature, token), an API key created with that token, USDT credited by the operator's deposit,
 * and an index price pushed by the operator so orders have a mark. Then one cycle of the order flow,
 * request by request, to prove the benchmark sends orders the exchange accepts.
 */
import { Wallet } from 'ethers';
import {
  type ApiKey,
  CANCEL_STEP,
  CYCLE_LENGTH,
  ORDER_PATH,
  OrderFlow,
  RESTING_STEP,
  signedRequest,
  type WireRequest,
} from './signed-orders';

interface Reply {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function reply(r: Response): Promise<Reply> {
  const text = await r.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: r.status, text, body };
}

async function call(
  url: string,
  path: string,
  o: { method?: string; body?: unknown; token?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  return reply(await fetch(`${url}${path}`, { method: o.method ?? 'GET', headers, body }));
}

function expectOk(what: string, r: Reply): Reply {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 500)}`);
  return r;
}

/** Sends a built request as is and reads the reply. */
export async function send(url: string, req: WireRequest): Promise<Reply> {
  return reply(
    await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body }),
  );
}

export interface BenchUser extends ApiKey {
  address: string;
}

/** A fresh wallet, logged in, with an API key and `deposit` USDT. */
export async function newFundedUser(url: string, adminToken: string, deposit: string): Promise<BenchUser> {
  const wallet = Wallet.createRandom();
  const address = wallet.address.toLowerCase();
  const nonce = expectOk('nonce', await call(url, `/api/v1/auth/nonce/${address}`));
  const t = nonce.body.typed_data;
  const signature = await wallet.signTypedData(t.domain, t.types, t.message);
  const login = expectOk(
    'login',
    await call(url, '/api/v1/auth/login', {
      method: 'POST',
      body: { address, signature, timestamp: t.message.timestamp },
    }),
  );
  const key = expectOk(
    'create API key',
    await call(url, '/api/v1/api-keys', {
      method: 'POST',
      body: { label: 'bench' },
      token: login.body.token,
    }),
  );
  expectOk(
    'deposit',
    await call(url, '/admin/v1/deposits', {
      method: 'POST',
      body: { address, asset: 'USDT', amount: deposit },
      token: adminToken,
    }),
  );
  return { address, apiKey: key.body.api_key, secretKey: key.body.secret_key };
}

/** The operator's index price for `symbol` (PRICE_SOURCE=admin). */
export async function pushIndexPrice(
  url: string,
  adminToken: string,
  symbol: string,
  indexPrice: string,
): Promise<void> {
  expectOk(
    'index price',
    await call(url, `/admin/v1/prices/${symbol}`, {
      method: 'POST',
      body: { indexPrice },
      token: adminToken,
    }),
  );
}

/**
 * Runs one cycle of `flow` sequentially and checks each answer is 200 with a FAPI order (an
 * `orderId` and a `status`); throws with the first answer that is not.
 */
export async function checkOrderFlow(url: string, flow: OrderFlow): Promise<string[]> {
  const statuses: string[] = [];
  let clientOrderId = '';
  for (let step = 0; step < CYCLE_LENGTH; step++) {
    let req: WireRequest;
    if (step === RESTING_STEP) {
      const r = flow.resting();
      clientOrderId = r.clientOrderId;
      req = r.request;
    } else if (step === CANCEL_STEP) req = flow.cancel(clientOrderId);
    else req = flow.crossing(step);
    const r = await send(url, req);
    const order = r.body as { orderId?: unknown; status?: unknown } | undefined;
    if (r.status !== 200 || typeof order?.orderId !== 'string' || typeof order.status !== 'string')
      throw new Error(
        `order flow step ${step} (${req.method} ${req.path.split('?')[0]}) is not a FAPI order: ` +
          `HTTP ${r.status} ${r.text.slice(0, 500)}`,
      );
    statuses.push(order.status);
  }
  return statuses;
}

/**
 * A market maker's standing book: `perSide` resting LIMIT orders of A (bids one tick apart below
 * `below`) and of B (asks above `above`), far from where the flow crosses, so none ever fills.
 * Per-order work that grows with a user's open orders shows in the rows that follow.
 */
export async function placeRestingBook(
  url: string,
  a: ApiKey,
  b: ApiKey,
  symbol: string,
  quantity: string,
  below: number,
  above: number,
  perSide: number,
): Promise<void> {
  const place = async (user: ApiKey, side: 'BUY' | 'SELL', price: number) => {
    const params = { symbol, side, type: 'LIMIT', timeInForce: 'GTC', price: String(price), quantity };
    const r = await send(url, signedRequest(user, 'POST', ORDER_PATH, params));
    const status = (r.body as { status?: unknown } | undefined)?.status;
    if (r.status !== 200 || status !== 'NEW')
      throw new Error(`resting ${side} at ${price}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  };
  for (let i = 0; i < perSide; i++)
    await Promise.all([place(a, 'BUY', below - i * 10), place(b, 'SELL', above + i * 10)]);
}

/** Checks a public read answers 200 with JSON. */
export async function checkRead(url: string, path: string): Promise<void> {
  const r = await send(url, { method: 'GET', path, headers: {} });
  if (r.status !== 200 || typeof r.body !== 'object')
    throw new Error(`GET ${path}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
}

/**
 * Waits until the commands a load run left in flight are handled: a closed-loop run stops with
 * requests still queued in the exchange, which the next row would otherwise wait behind. Each user's
 * commands are handled in order, so a cancel of an unknown order (refused, changes nothing) sent per
 * user is answered only after them.
 */
export async function waitUntilIdle(url: string, users: ApiKey[], symbol: string): Promise<void> {
  await Promise.all(
    users.map((u) =>
      send(url, signedRequest(u, 'DELETE', ORDER_PATH, { symbol, origClientOrderId: 'bench-idle-probe' })),
    ),
  );
}
