import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as a real SMTP server received it: the envelope and the decoded subject and text. */
export interface ReceivedMail {
  /** The envelope's MAIL FROM ('' for the null sender). */
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

/** A quoted-printable body (RFC 2045 6.7) as text: soft line breaks joined, =XX octets decoded as UTF-8. */
function quotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined[i] === '=' ? /^[0-9A-F]{2}$/i.exec(joined.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex !== undefined) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i] ?? '', 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The subject and plain text of a single-part message as nodemailer writes one. */
function decoded(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1] ?? '';
  const subject = header('Subject').replace(/=\?utf-8\?Q\?(.*?)\?=/gi, (_, word: string) => quotedPrintable(word.replace(/_/g, ' '))).replace(/\?= =\?/g, '');
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text = encoding === 'quoted-printable' ? quotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}

export interface SmtpInbox {
  url: string;
  received: ReceivedMail[];
  /** Set to refuse the next `count` messages with a 451 (try again later), as a busy server does. */
  refuse: { count: number };
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/** A local SMTP server (npm smtp-server) that keeps what it receives, for tests to read. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const received: ReceivedMail[] = [];
  const refuse = { count: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuse.count > 0) {
          refuse.count--;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ...decoded(raw),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse,
    to: (address) => received.filter((mail) => mail.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail | undefined, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const link = new RegExp(`${escaped}\\S+`).exec(mail?.text ?? '')?.[0];
  if (link === undefined) throw new Error(`no link starting ${prefix} in: ${mail?.text ?? '(no mail)'}`);
  return link;
}
