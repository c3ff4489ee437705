import { get as httpGet, type Agent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/**
 * A Server-Sent Events reader over real HTTP (node:http), for the status stream's tests, the
 * process test and the bench: the events as the stream sent them (id, event, data), its comments
 * (`: ping`) apart, and whether it ended.
 */

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface SseOpen {
  status: number;
  headers: IncomingHttpHeaders;
  /** Set for a 200 text/event-stream answer. */
  reader: SseReader | undefined;
  /** The body of any other answer. */
  body: string;
}

/**
 * GET `url` as an EventSource would (node:http, a connection of its own: closing the reader
 * closes its socket, so the server sees the reader go at once).
 */
export function openSse(url: string, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<SseOpen> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { accept: 'text/event-stream', ...headers }, agent }, (res) => {
      const type = res.headers['content-type'] ?? '';
      if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, reader: undefined, body }));
        res.on('error', reject);
        return;
      }
      resolve({ status: 200, headers: res.headers, reader: new SseReader(res, () => request.destroy()), body: '' });
    });
    request.on('error', reject);
  });
}

export class SseReader {
  readonly comments: string[] = [];
  private readonly events: SseEvent[] = [];
  private buffer = '';
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  private closed = false;

  constructor(
    body: IncomingMessage,
    private readonly destroy: () => void,
  ) {
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.parse();
    });
    const ended = (): void => {
      this.ended = true;
      this.wake?.();
    };
    body.on('end', ended);
    body.on('close', ended);
    body.on('error', (error) => {
      this.failure = error;
      ended();
    });
  }

  get isEnded(): boolean {
    return this.ended && this.events.length === 0;
  }

  /** The next event; undefined once the stream ended. Fails after `timeoutMs` without one. */
  async next(timeoutMs = 5000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.events.shift();
      if (event !== undefined) return event;
      if (this.ended) {
        if (this.failure !== undefined && !this.closed) throw this.failure;
        return undefined;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Events until the stream ends (each within `timeoutMs`). */
  async rest(timeoutMs = 5000): Promise<SseEvent[]> {
    const all: SseEvent[] = [];
    for (let event = await this.next(timeoutMs); event !== undefined; event = await this.next(timeoutMs)) all.push(event);
    return all;
  }

  /** Drops the connection (a reader gone). */
  close(): void {
    this.closed = true;
    this.destroy();
  }

  private parse(): void {
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = { id: undefined, event: undefined, data: '' };
      let data: string[] | undefined;
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line);
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'data') (data ??= []).push(value);
      }
      if (data === undefined) continue;
      event.data = data.join('\n');
      this.events.push(event);
    }
    this.wake?.();
  }
}
