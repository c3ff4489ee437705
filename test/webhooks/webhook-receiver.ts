import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  path: string;
  /** Date.now() when the request's body had arrived. */
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a path answers: a status (and body), or nothing at all (a hanging receiver). */
export type Behaviour = (response: ServerResponse, received: Received) => void;

/**
 * A local webhook receiver on 127.0.0.1: records every request and answers per path
 * (`behave(path, …)`; 204 by default). Used by the webhook tests and the bench.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '/', at: Date.now(), headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(received);
        const behaviour = this.behaviours.get(received.path);
        if (behaviour === undefined) response.writeHead(204).end();
        else behaviour(response, received);
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  behave(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  /** The path never answers (until close). */
  hang(path: string): void {
    this.behave(path, (response) => this.hanging.add(response));
  }

  on(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}

/** Answers with `status` and an optional body. */
export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Behaviour =>
  (response) =>
    response.writeHead(status, headers).end(body);
