import type { FastifyInstance } from 'fastify';

/**
 * The first phase of a graceful stop (src/server.ts): once `begin()` is called,
 * /readyz answers 503 so the load balancer takes this process out, and every response, on
 * either listener, carries `Connection: close`, so each keep-alive connection closes after its
 * current response instead of being cut under a request the client sends on it later. Requests
 * are still served meanwhile; the listeners stop accepting only after SHUTDOWN_DELAY_MS.
 */
export class Drain {
  private started = false;
  private readonly listeners: (() => void)[] = [];

  get draining(): boolean {
    return this.started;
  }

  /** Runs `listener` when the stop begins: what holds a connection open (a status stream) lets go. */
  onBegin(listener: () => void): void {
    this.listeners.push(listener);
  }

  begin(): void {
    if (this.started) return;
    this.started = true;
    for (const listener of this.listeners) listener();
  }
}

/** The `Connection: close` part, for every response of `app` (errors and 404s included). */
export function installDrain(app: FastifyInstance, drain: Drain): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Node sees the header and ends the connection once this response is written.
    if (drain.draining) void reply.header('connection', 'close');
    done(null, payload);
  });
}
