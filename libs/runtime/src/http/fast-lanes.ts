import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Answers a request whose path has a lane, or declines (returns false) before doing anything, and
 * the request goes through Fastify and Nest as usual. `query` is the text after `?` ('' if none).
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse, query: string) => boolean;

/**
 * Requests answered ahead of Fastify's router, hooks and Nest's pipeline, for routes whose whole
 * per-request work is small next to those: bodyless GETs of read-mostly public routes (the
 * gateway's PublicReadLanes) and signed order entry (SignedOrderLanes). A lane owns its whole
 * answer: headers, errors and metrics. A GET with a body never reaches a lane; a lane of another
 * method decides from the headers whether it reads the body itself (it must decide before any byte
 * is read: once it takes the request, Fastify never sees it). Empty (every app but the gateway),
 * it costs one Map size check per request.
 */
export class HttpFastLanes {
  /** By method, then path. */
  private readonly lanes = new Map<string, Map<string, FastLane>>();
  private size = 0;
  /** Requests a lane has taken so far. */
  taken = 0;

  add(path: string, lane: FastLane, method = 'GET'): void {
    let byPath = this.lanes.get(method);
    if (!byPath) this.lanes.set(method, (byPath = new Map()));
    if (byPath.has(path)) throw new Error(`a fast lane for ${method} ${path} exists already`);
    byPath.set(path, lane);
    this.size++;
  }

  /** Every request goes to Fastify again (on shutdown, so Fastify answers as it closes). */
  clear(): void {
    this.lanes.clear();
    this.size = 0;
  }

  /** Puts the lanes in front of the server's one `request` listener (Fastify's). */
  install(server: Server): void {
    const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    if (listeners.length !== 1) throw new Error(`expected one request listener, found ${listeners.length}`);
    const next = listeners[0]!;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.size === 0 || !this.take(req, res)) next(req, res);
    });
  }

  private take(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method ?? 'GET';
    const byPath = this.lanes.get(method);
    if (byPath === undefined) return false;
    // A GET with a body is rare enough to leave to Fastify.
    if (
      method === 'GET' &&
      (rawHeader(req, 'transfer-encoding') !== undefined || (rawHeader(req, 'content-length') ?? '0') !== '0')
    )
      return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const lane = byPath.get(q < 0 ? url : url.slice(0, q));
    if (lane === undefined || !lane(req, res, q < 0 ? '' : url.slice(q + 1))) return false;
    this.taken++;
    return true;
  }
}

/**
 * A request header by its lower-case name, read from `rawHeaders` (repeated ones joined by ', ' as
 * `req.headers` joins them): `req.headers` is built on first use, a cost a fast lane can skip.
 */
export function rawHeader(req: Pick<IncomingMessage, 'rawHeaders'>, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const n = raw[i]!;
    if (n.length === name.length && n.toLowerCase() === name)
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}
