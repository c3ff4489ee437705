import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import nodemailer, { type SendMailOptions, type Transporter, type TransportOptions } from 'nodemailer';
import type { Clock } from '../clock.js';
import { insertMail, type NewMail } from '../db/repositories/mail-outbox-repository.js';
import type { Database, Db } from '../db/schema/index.js';

/**
 * One mail to queue: one recipient, a subject line and a plain-text body. Several recipients are
 * several mails, so each is delivered, retried and recorded on its own.
 */
export interface MailMessage {
  /** One address (`person@example.com`). */
  to: string;
  /** One line, at most 200 characters. */
  subject: string;
  /** Plain text. */
  text: string;
}

/** What an address must look like to be queued: one address, no spaces or line breaks, 3–320 characters. */
const ADDRESS = /^[^\s@<>]{1,64}@[^\s@<>]{1,255}$/;

/**
 * The mail outbox's writer (docs/decisions.md, "Mail outbox"): `enqueue` queues mail in the
 * caller's transaction when given one (`tx`), so a mail about a change goes out only if the change
 * commits; the worker (MailWorker) delivers it. Anything that tells people by mail calls this,
 * never a transport.
 */
export class Mailer {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Queues one mail or several; returns their ids. Throws (a bug of the caller) for an address or subject that cannot be a mail's. */
  async enqueue(mail: MailMessage | readonly MailMessage[], tx?: Db): Promise<string[]> {
    const mails: NewMail[] = (Array.isArray(mail) ? mail : [mail]).map((one: MailMessage) => checkedMail(one));
    return insertMail(tx ?? this.db, mails, this.clock.now());
  }
}

function checkedMail(mail: MailMessage): NewMail {
  if (!ADDRESS.test(mail.to)) throw new Error(`not one mail address: ${JSON.stringify(mail.to)}`);
  // A line break in a header is a header injection: refused, never folded away.
  if (mail.subject.length === 0 || mail.subject.length > 200 || /[\r\n]/.test(mail.subject)) throw new Error('a mail subject is one line of 1 to 200 characters');
  return { to: mail.to, subject: mail.subject, text: mail.text };
}

/** A mail as the worker delivers it. */
export interface OutgoingMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  createdAt: Date;
}

/** Delivers one mail or throws; the worker retries with backoff. */
export interface MailTransport {
  /** Where mail goes, for the start-up log line (no password). */
  readonly describe: string;
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Headers every mail carries: its outbox id as Message-ID, so a mail sent twice (at least once) is recognised as one. */
function message(from: string, mail: OutgoingMail): SendMailOptions {
  return { from, to: mail.to, subject: mail.subject, text: mail.text, date: mail.createdAt, messageId: `<${mail.id}@mail-outbox>` };
}

/** SMTP_URL: through nodemailer. */
export class SmtpMailTransport implements MailTransport {
  readonly describe: string;
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
    timeoutMs = 30_000,
  ) {
    const parsed = new URL(url);
    this.describe = `${parsed.protocol}//${parsed.host}`;
    this.transport = nodemailer.createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs } as TransportOptions);
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail(message(this.from, mail));
  }

  close(): void {
    this.transport.close();
  }
}

/** No SMTP_URL (the embedded default): each mail becomes `DATA_DIR/mail/<time>-<id>.eml`, and is logged. */
export class FileMailTransport implements MailTransport {
  readonly describe: string;
  private readonly builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly directory: string,
    private readonly from: string,
    private readonly log: (fields: object, msg: string) => void,
  ) {
    this.describe = `files in ${directory}`;
  }

  async send(mail: OutgoingMail): Promise<void> {
    const built = (await this.builder.sendMail(message(this.from, mail))) as { message: Buffer };
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const file = path.join(this.directory, `${mail.createdAt.toISOString().replace(/[:.]/g, '-')}-${mail.id}.eml`);
    await writeFile(file, built.message, { mode: 0o600 });
    this.log({ mail_id: mail.id, to: mail.to, subject: mail.subject, file }, 'mail written (no SMTP_URL)');
  }

  close(): void {
    this.builder.close();
  }
}

/** The transport a configuration names: SMTP with SMTP_URL, else files under DATA_DIR/mail. */
export function configuredMailTransport(config: { smtpUrl: string | undefined; from: string; dataDir: string }, log: (fields: object, msg: string) => void): MailTransport {
  if (config.smtpUrl !== undefined) return new SmtpMailTransport(config.smtpUrl, config.from);
  return new FileMailTransport(path.join(config.dataDir, 'mail'), config.from, log);
}
