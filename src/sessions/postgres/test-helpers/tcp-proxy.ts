/**
 * A TCP proxy between `pg` and a real server, to play a lost connection without touching the
 * shared server: `cutAll()` destroys every proxied socket (both sides), `refuse()` makes new
 * connections fail until `accept()`, and `hold()` stops forwarding the server's answers (a
 * server that went silent) until `release()`.
 */
import { createServer, type Server, Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxiedUrl(url: string): string;
  /** Destroys every open connection; returns how many there were. */
  cutAll(): number;
  /** New connections are closed at once until `accept()`. */
  refuse(): void;
  accept(): void;
  /** The server's bytes are kept back (not forwarded) until `release()`. */
  hold(): void;
  release(): void;
  /** Connections open now. */
  readonly openCount: number;
  /** Resolves at the next chunk a client sends while the server's answers are held. */
  nextHeldRequest(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  held: Buffer[];
}

export async function startTcpProxy(options: {
  targetHost: string;
  targetPort: number;
}): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  let holding = false;
  let heldRequestWaiters: Array<() => void> = [];

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    const pair: Pair = { client, server: upstream, held: [] };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // Socket errors here are the point of the exercise: both sides are simply closed.
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('data', (chunk) => {
      upstream.write(chunk);
      if (holding) {
        const waiters = heldRequestWaiters;
        heldRequestWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
    upstream.on('data', (chunk) => {
      if (holding) pair.held.push(chunk);
      else client.write(chunk);
    });
    upstream.connect(options.targetPort, options.targetHost);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const port = address.port;

  function cutAll(): number {
    const count = pairs.size;
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.server.destroy();
    }
    pairs.clear();
    return count;
  }

  return {
    port,
    proxiedUrl(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cutAll,
    refuse() {
      refusing = true;
    },
    accept() {
      refusing = false;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const pair of pairs) {
        for (const chunk of pair.held.splice(0)) pair.client.write(chunk);
      }
    },
    get openCount() {
      return pairs.size;
    },
    nextHeldRequest() {
      return new Promise<void>((resolve) => heldRequestWaiters.push(resolve));
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
