/** A reply body read to a cap: its bytes, or how it went past the cap. */
export type CappedBody =
  | { kind: 'read'; bytes: Buffer }
  /** `declared`: the Content-Length that was over the cap; undefined when counted while reading. */
  | { kind: 'too_large'; declared: number | undefined };

/**
 * Reads `response`'s body up to `maxBytes`: refused at once when its Content-Length is over,
 * else counted while reading and cancelled at the first byte past the cap, so a peer (a chain
 * node, a price feed) cannot make this process hold an unbounded reply. Rejects only on a
 * failed read (the connection dropped).
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { kind: 'too_large', declared };
  }
  if (response.body === null) return { kind: 'read', bytes: Buffer.alloc(0) };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    // Typed by hand: the fetch typings leave the chunk type open, the runtime gives Uint8Array.
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || value === undefined) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return { kind: 'too_large', declared: undefined };
    }
    chunks.push(value);
  }
  return { kind: 'read', bytes: Buffer.concat(chunks) };
}
