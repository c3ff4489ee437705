/**
 * A Server-Sent Events reader over a fetch body (text/event-stream, as the status stream sends
 * it: docs/contract.md §10.11), with fetch and web streams only, so it runs in browsers and edge runtimes
 * as the rest of the SDK does. Comments (`: ping`) keep the connection alive and are not events.
 */

export interface StreamEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** Thrown when no byte (not even a ping) came for `idleMs`: the connection is taken as dead. */
export class StreamIdleError extends Error {}

/** The events of `body` until it ends; each read waits at most `idleMs`. */
export async function* readEvents(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<StreamEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const chunk = await readWithin(reader, idleMs);
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const event = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event !== undefined) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, idleMs: number): Promise<ReadResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamIdleError(`nothing from the stream for ${idleMs} ms`)), idleMs);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

/** One frame's fields; undefined for a frame with no data (a comment, a `retry:`). */
function parseFrame(frame: string): StreamEvent | undefined {
  const event: StreamEvent = { id: undefined, event: undefined, data: '' };
  let data: string[] | undefined;
  for (const line of frame.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') (data ??= []).push(value);
  }
  if (data === undefined) return undefined;
  event.data = data.join('\n');
  return event;
}
