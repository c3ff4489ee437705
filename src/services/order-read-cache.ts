import { createHash } from 'node:crypto';
import { publicJsonFromOrderJson } from '../views/public-order-view.js';
import type { OrderMove, OrderMoveSubscriber } from './order-move-feed.js';

/**
 * Each API process's copy of the partner-visible orders it was asked for (docs/adr/0057-order-read-cache.md):
 * the Order's bytes as GET /partner/orders/{id} answers them, its version and ETag, so a poll of
 * an order that did not move reads no database. Bounded (least recently read out first).
 *
 * Kept right by the order move feed (services/order-move-feed.ts), which tells every process of
 * every move of any order, committed (NOTIFY on PostgreSQL, in-process on PGlite): a move of a
 * kept order replaces its copy with the move's own Order. While the feed's LISTEN connection is
 * lost nothing is kept or served, and every copy is dropped then (moves told meanwhile are lost).
 */

/** Who may read an order: its partner, its mode, the key that made it (a client key reads only its own). */
export interface CachedOrderOwner {
  partnerId: string;
  /** Set for a key (it reads its own mode only); undefined reaches either mode. */
  sandbox?: boolean | undefined;
  /** Set for a client key: only the orders it created. */
  createdBy?: string | undefined;
}

/** A partner-visible order as this process serves it. */
export interface OrderReading {
  json: string;
  /** A strong ETag (quoted): it changes whenever the bytes do. */
  etag: string;
}

/** The public view (GET /api/v1/public/orders/{token}) as this process serves it. */
export type PublicOrderReading = OrderReading;

/** What a fill needs beyond the bytes: who owns the order and which instants change how it reads. */
export interface OrderFacts {
  id: string;
  short_id: string;
  status_token: string;
  sandbox: boolean;
  created_by_key_id: string | null;
  version: number;
  /** ISO text (the wire row's): the Order reads differently from this instant on. */
  expires_at: string;
  refund_hold_until: string | null;
}

interface Entry extends OrderReading {
  id: string;
  shortId: string;
  statusToken: string;
  partnerId: string;
  sandbox: boolean;
  createdBy: string | null;
  version: number;
  expiresAt: string;
  holdUntil: string | null;
  /**
   * The bytes hold until this instant (ISO text): the next of expires_at and refund_hold_until
   * after the instant they were written at. The Order's status and actions read differently from
   * it on (a waiting order reads expired, a held refund proceeds) without any move.
   */
  validUntil: string;
  public: PublicOrderReading | undefined;
}

/** Later than any instant an order has (ISO text compares as the instants do). */
const NEVER = '~';

/**
 * How far before a move's arrival the Order it carries may have been written: the lifecycle
 * writes it at its clock's `now` inside the move's transaction, committed (and told) after. A
 * boundary inside this window (or later) makes the told bytes unusable; they are dropped instead.
 */
const MOVE_WRITTEN_WITHIN_MS = 5000;

/** Reads in flight remembered as overtaken by a move; past it every read in flight is treated so. */
const MOVED_DURING_READS_LIMIT = 10_000;

export function orderEtag(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 22)}"`;
}

export class OrderReadCache implements OrderMoveSubscriber {
  private readonly entries = new Map<string, Entry>();
  private readonly byShortId = new Map<string, string>();
  private readonly byToken = new Map<string, string>();
  /** Counts moves and flushes: a read remembers it when it starts. */
  private seq = 0;
  /** A read that started before this may not fill (a flush or a forgotten move happened since). */
  private fillsFrom = 0;
  /** The seq of the last move of an order, while reads may be in flight. */
  private readonly movedAt = new Map<string, number>();

  /**
   * @param limit orders kept at most (0: none, every read goes to the database)
   * @param listening whether moves reach this process now: true in-process (PGlite); on
   *   PostgreSQL false until the feed's LISTEN is in place (its first `gap`)
   * @param now the clock's current instant as ISO text (moves compare it with the Order's instants)
   */
  constructor(
    private readonly limit: number,
    private listening: boolean,
    private readonly now: () => string,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The order with this id (lower case UUID) or short id (upper case), if kept, valid at `nowIso` and `owner`'s. */
  get(owner: CachedOrderOwner, by: { id: string } | { shortId: string }, nowIso: string): OrderReading | undefined {
    const id = 'id' in by ? by.id : this.byShortId.get(by.shortId);
    if (id === undefined) return undefined;
    const entry = this.entries.get(id);
    if (entry === undefined || nowIso >= entry.validUntil) return undefined;
    // The same filter as the database's query: another partner's, mode's or key's order is not found.
    if (entry.partnerId !== owner.partnerId) return undefined;
    if (owner.sandbox !== undefined && entry.sandbox !== owner.sandbox) return undefined;
    if (owner.createdBy !== undefined && entry.createdBy !== owner.createdBy) return undefined;
    this.touch(entry);
    return entry;
  }

  /** The public view of the order behind a status token, if kept and valid at `nowIso`. */
  getPublic(token: string, nowIso: string): PublicOrderReading | undefined {
    const id = this.byToken.get(token);
    const entry = id === undefined ? undefined : this.entries.get(id);
    if (entry === undefined || nowIso >= entry.validUntil) return undefined;
    this.touch(entry);
    if (entry.public === undefined) {
      const json = publicJsonFromOrderJson(entry.json);
      entry.public = { json, etag: orderEtag(json) };
    }
    return entry.public;
  }

  /** Call before reading an order from the database; pass the result to `fill`. */
  begin(): number {
    return this.seq;
  }

  /**
   * The order as read from the database (`json` written at `nowIso`), kept unless a move or a
   * flush came after the read began (the read may be older than what was told since).
   */
  fill(started: number, partnerId: string, facts: OrderFacts, json: string, nowIso: string): OrderReading {
    const reading = { json, etag: orderEtag(json) };
    if (this.limit === 0 || !this.listening || started < this.fillsFrom) return reading;
    if ((this.movedAt.get(facts.id) ?? -1) > started) return reading;
    const kept = this.entries.get(facts.id);
    if (kept !== undefined && kept.version > facts.version) return reading;
    this.store({
      ...reading,
      id: facts.id,
      shortId: facts.short_id,
      statusToken: facts.status_token,
      partnerId,
      sandbox: facts.sandbox,
      createdBy: facts.created_by_key_id,
      version: facts.version,
      expiresAt: facts.expires_at,
      holdUntil: facts.refund_hold_until,
      validUntil: nextBoundary(facts.expires_at, facts.refund_hold_until, nowIso),
      public: undefined,
    });
    return reading;
  }

  /** A committed move (of any order, from any process): the kept copy takes the move's Order, or goes. */
  move(move: OrderMove): void {
    this.seq++;
    if (this.movedAt.size >= MOVED_DURING_READS_LIMIT) this.forgetMoves();
    this.movedAt.set(move.orderId, this.seq);
    const kept = this.entries.get(move.orderId);
    if (kept === undefined || kept.version >= move.version) return;
    const facts = orderFactsOf(move.orderJson);
    if (facts === undefined) {
      this.remove(kept);
      return;
    }
    // The told Order was written at most MOVE_WRITTEN_WITHIN_MS before now: usable only if no
    // boundary lies between then and now.
    const writtenAfter = new Date(Date.parse(this.now()) - MOVE_WRITTEN_WITHIN_MS).toISOString();
    const validUntil = nextBoundary(facts.expiresAt, facts.holdUntil, writtenAfter);
    if (validUntil <= this.now()) {
      this.remove(kept);
      return;
    }
    this.store({ ...kept, json: move.orderJson, etag: orderEtag(move.orderJson), version: move.version, expiresAt: facts.expiresAt, holdUntil: facts.holdUntil, validUntil, public: undefined });
  }

  /** The LISTEN is in place (again): moves may have been missed before it, so nothing kept holds. */
  gap(): void {
    this.flush();
    this.listening = true;
  }

  /** The LISTEN connection is lost: nothing is kept or served until it is back (`gap`). */
  lost(): void {
    this.listening = false;
    this.flush();
  }

  private flush(): void {
    this.entries.clear();
    this.byShortId.clear();
    this.byToken.clear();
    this.forgetMoves();
  }

  /** Every read in flight now may not fill: the moves that could overtake it are not remembered. */
  private forgetMoves(): void {
    this.seq++;
    this.fillsFrom = this.seq;
    this.movedAt.clear();
  }

  private store(entry: Entry): void {
    const old = this.entries.get(entry.id);
    if (old !== undefined) this.entries.delete(entry.id);
    else if (this.entries.size >= this.limit) {
      const oldest = this.entries.values().next();
      if (oldest.done !== true) this.remove(oldest.value);
    }
    this.entries.set(entry.id, entry);
    this.byShortId.set(entry.shortId, entry.id);
    this.byToken.set(entry.statusToken, entry.id);
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.id);
    this.byShortId.delete(entry.shortId);
    this.byToken.delete(entry.statusToken);
  }

  /** Most recently read last: a Map iterates in insertion order, so the first entry is the one to drop. */
  private touch(entry: Entry): void {
    this.entries.delete(entry.id);
    this.entries.set(entry.id, entry);
  }
}

/** The first of the Order's boundaries after `fromIso`, or NEVER. */
function nextBoundary(expiresAt: string, holdUntil: string | null, fromIso: string): string {
  let next = NEVER;
  if (expiresAt > fromIso) next = expiresAt;
  if (holdUntil !== null && holdUntil > fromIso && holdUntil < next) next = holdUntil;
  return next;
}

/** The instants a told Order reads differently from; undefined when the text is not an Order. */
function orderFactsOf(orderJson: string): { expiresAt: string; holdUntil: string | null } | undefined {
  try {
    const order = JSON.parse(orderJson) as { expires_at?: unknown; refund_hold_until?: unknown };
    const hold = order.refund_hold_until;
    if (typeof order.expires_at !== 'string' || (hold !== null && typeof hold !== 'string')) return undefined;
    return { expiresAt: order.expires_at, holdUntil: hold };
  } catch {
    return undefined;
  }
}
