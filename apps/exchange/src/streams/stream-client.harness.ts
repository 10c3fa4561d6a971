import WebSocket from 'ws';

/** A parsed frame (tests read its fields freely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>;

/** A test's WebSocket client: every frame parsed, waited on by predicate, in arrival order. */
export class StreamClient {
  readonly received: unknown[] = [];
  private waiters: { test: (m: unknown) => boolean; resolve: (m: unknown) => void }[] = [];
  closed: { code: number; reason: string } | undefined;
  private readonly closing: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m: unknown = JSON.parse(data.toString());
      this.received.push(m);
      this.waiters = this.waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
    });
    this.closing = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve((this.closed = { code, reason: reason.toString() }))),
    );
  }

  /** Opens `path` on the exchange's HTTP URL (http → ws). */
  static open(url: string, path: string, options: WebSocket.ClientOptions = {}): Promise<StreamClient> {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + path, options);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new StreamClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
      });
      ws.once('error', reject);
    });
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The first frame (already received or to come) that passes `test`. */
  next<T = Frame>(test: (m: T) => boolean, timeoutMs = 15_000): Promise<T> {
    const seen = this.received.find((m) => test(m as T));
    if (seen !== undefined) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen as T);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const unread = JSON.stringify(this.received.slice(-5));
        reject(new Error(`no matching frame in ${timeoutMs} ms; last unread: ${unread}`));
      }, timeoutMs);
      this.waiters.push({
        test: (m) => test(m as T),
        resolve: (m) => {
          clearTimeout(timer);
          this.received.splice(this.received.indexOf(m), 1);
          resolve(m as T);
        },
      });
    });
  }

  /** A request and its `{result|error, id}` reply. */
  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.send(body);
    return this.next((m) => 'id' in m && m.id === body.id);
  }

  /** Resolves with the close code and reason once the server closes the socket. */
  whenClosed(): Promise<{ code: number; reason: string }> {
    return this.closing;
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closing;
  }
}

export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused: ${status} ${body}`);
  }
}

/** The sockets a spec opened, closed together at its end. */
export class StreamClients {
  private readonly all: StreamClient[] = [];

  constructor(private readonly url: () => string) {}

  async open(path: string, options: WebSocket.ClientOptions = {}): Promise<StreamClient> {
    const c = await StreamClient.open(this.url(), path, options);
    this.all.push(c);
    return c;
  }

  async closeAll(): Promise<void> {
    for (const c of this.all.splice(0)) if (!c.closed) await c.close();
  }
}
