import { randomBytes } from 'node:crypto';

/**
 * Request ids for the logs' correlation (X-Request-Id), made without formatting 16 random bytes
 * per request as randomUUID does: a random prefix per process and a counter. Each id is a UUID
 * in form, version 8 (RFC 9562's custom layout) with the RFC's variant bits: 74 random bits
 * drawn when the process starts (another process, or a restart, draws others) and a 48-bit
 * sequence. Unique within a process by the counter, across processes by the prefix (two
 * processes share one with a chance of 2^-74); not secret, and not meant to be: nothing is
 * authorised by a request id.
 */
export class RequestIds {
  private prefix = '';
  private next = 0;

  constructor() {
    this.renew();
  }

  id(): string {
    if (this.next >= LIMIT) this.renew();
    const hex = (this.next++).toString(16);
    return this.prefix + PAD.slice(hex.length) + hex;
  }

  private renew(): void {
    const hex = randomBytes(10).toString('hex');
    // xxxxxxxx-xxxx-8xxx-Vxxx- with V one of 8, 9, a, b (the variant's leading bits 10).
    const variant = ((parseInt(hex[15]!, 16) & 0x3) | 0x8).toString(16);
    this.prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(12, 15)}-${variant}${hex.slice(16, 19)}-`;
    this.next = 0;
  }
}

/** 2^48: the sequence's 12 hex digits. */
const LIMIT = 2 ** 48;
const PAD = '000000000000';
