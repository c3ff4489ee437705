import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of `target`. `down()` closes the listener and cuts every
 * connection (the target looks stopped: new connections are refused); `up()` listens again on
 * the same port. `stall()` keeps every connection open but holds the bytes (a hung server or a
 * network partition without resets: connections are accepted and nothing comes back);
 * `resume()` delivers what was held. Put a server's DATABASE_URL or REDIS_URL on `port` to make
 * its dependency fail and come back while the real one keeps running.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly links = new Set<{ client: net.Socket; upstream: net.Socket; held: Array<[net.Socket, Buffer]> }>();
  private stalled = false;
  port = 0;
  /** Connections accepted so far. */
  accepted = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    if (this.server !== undefined) return;
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    this.links.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const link of this.links) {
      for (const [to, chunk] of link.held.splice(0)) to.write(chunk);
    }
  }

  private accept(client: net.Socket): void {
    this.accepted += 1;
    const upstream = net.connect(this.target.port, this.target.host);
    const link = { client, upstream, held: [] as Array<[net.Socket, Buffer]> };
    this.links.add(link);
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      if (this.stalled) link.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = (): void => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}
