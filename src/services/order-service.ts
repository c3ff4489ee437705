import { randomBytes, randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../db/errors.js';
import type { Decimal } from '../domain/money.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  createPartnerOrder,
  ExternalIdConflict,
  IdempotencyKeyCompleted,
  OpenOrdersOverCap,
  type NewOrderRow,
  type OrderCreation,
} from '../db/repositories/order-creation-repository.js';
import {
  findPartnerOrderView,
  findPublicOrder,
  orderUsingQuote,
  orderWithExternalId,
  type OrderOwner,
  type PartnerOrderRow,
} from '../db/repositories/orders-repository.js';
import { listOrderEvents, type OrderEventListing } from '../db/repositories/order-events-repository.js';
import type { CurrencyRow } from '../db/schema/currencies.js';
import type { Database, Db } from '../db/schema/index.js';
import type { OrderMetadata } from '../db/schema/orders.js';
import type { PartnerRow } from '../db/schema/partners.js';
import type { EndUserIp } from '../domain/end-user-ip.js';
import { checkRecipient } from '../domain/addresses/recipient-check.js';
import { depositPaymentUri } from '../domain/payment-uri.js';
import type { RateType } from '../domain/pricing/index.js';
import { newShortId, SHORT_ID_PATTERN, UUID_PATTERN } from '../domain/short-id.js';
import { ApiError } from '../errors.js';
import { ProblemList } from '../problem-list.js';
import type { DepositAddressAllocator, ReservedAddress } from './deposit-address-allocator.js';
import type { EndUserBlocklist } from './end-user-blocklist.js';
import type { IdempotencyKeys } from './idempotency.js';
import type { FixedQuoteClaim } from './fixed-quote-tokens.js';
import { sandboxScope, type PartnerAccess } from './partner-access.js';
import type { AmountFieldNames, PricedQuote, QuoteService } from './quote-service.js';
import { checkRefundAddress } from './refund-address.js';
import { newWebhookMessageId, orderEventBody } from './webhook-outbox.js';
import type { LinkBase } from '../views/partner-order-view.js';
import type { PublicOrderRow } from '../views/public-order-view.js';
import { orderVersions } from '../db/repositories/order-status-repository.js';
import { statusAt, type OrderStatus } from '../domain/order-status.js';

/** What migration 0050 lets a status token be. */
/** A status link token as the service or migration 0050 makes it; any other is not looked up. */
export const STATUS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,64}$/;

/** An order's status page token (docs/contract.md §10.10): 24 random bytes, 32 base64url characters (192 bits). */
function newStatusToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Every order's deposit window (docs/contract.md §4). */
export const DEPOSIT_WINDOW_MS = 30 * 60 * 1000;
const SHORT_ID_ATTEMPTS = 5;
/**
 * Addresses tried for one order when the stock's address turns out retired: a chain watcher saw
 * it paid on chain though this database never handed it out (deposit-index-probe.ts), and wrote
 * it down so that nobody gets it. A process holds at most a block of drawn indexes.
 */
const RETIRED_ADDRESS_ATTEMPTS = 40;

export interface CreateOrderInput {
  coinFrom: string;
  networkFrom: string;
  coinTo: string;
  networkTo: string;
  /**
   * Exactly as the client wrote it (not through a binary float). Exactly one of amountFrom and
   * amountTo is given (the route refuses both or neither).
   */
  amountFrom?: Decimal | undefined;
  /** A reverse order (docs/contract.md §7.1): priced at the smallest amount_from whose payout reaches it. */
  amountTo?: Decimal | undefined;
  rateType: RateType;
  recipientAddress: string;
  recipientAddressTag?: string | undefined;
  refundAddress?: string | undefined;
  /** The refund address's memo or tag: required with it where the deposit chain routes by memo. */
  refundAddressTag?: string | undefined;
  quoteId?: string | undefined;
  /**
   * From the key that authenticated the request, never from the body: a sandbox key's order
   * (docs/contract.md §7.6) runs on the simulator only, whatever chains are configured.
   */
  sandbox: boolean;
  /** The key that creates the order, recorded on the order and its creation event (docs/contract.md §10.2). */
  keyId: string;
  /** The partner's own reference (docs/contract.md §10.8): unique per partner and mode. */
  externalId?: string | undefined;
  /** The partner's string map (the route checked its bounds). */
  metadata?: OrderMetadata | undefined;
  /** X-End-User-IP, already parsed: checked against the operator's blocklist, stored for the operator. */
  endUserIp?: EndUserIp | undefined;
  /**
   * The key is a client key (docs/contract.md §10.9): an Idempotency-Key replay answers only an order this
   * key created, never one of the partner's other keys (anyone may hold a client key).
   */
  clientKey?: boolean;
}

export type CreateOrderResult = { order: PartnerOrderRow; replayed: boolean };

/**
 * Order creation and partner reads. Creation validates everything first (nothing is stored for
 * a rejected request), then writes order, deposit address, first audit event and idempotency
 * record in one statement.
 */
export class OrderService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly quotes: QuoteService,
    private readonly addresses: DepositAddressAllocator,
    private readonly idempotency: IdempotencyKeys,
    private readonly clock: Clock,
    private readonly shortIdPrefix: string,
    /** Open orders per partner when the partner has no max_open_orders of its own. */
    private readonly defaultMaxOpenOrders: number,
    /** The operator's blocklist of end users (IP_BLOCKLIST, REGION_BLOCKLIST). */
    private readonly blocklist: EndUserBlocklist,
    /** Where the Order's links begin (status_url in the order.created webhook body). */
    private readonly linkBase: LinkBase = '',
  ) {}

  async create(
    partner: PartnerRow,
    input: CreateOrderInput,
    idempotency?: { key: string; body: Buffer },
  ): Promise<CreateOrderResult> {
    if (idempotency !== undefined) {
      const claim = await this.idempotency.claim(partner.id, idempotency.key, idempotency.body);
      if (claim.kind === 'replay') return { order: await this.replay(partner, input, claim.orderId), replayed: true };
    }
    // A replay above answers as it always did, whatever the blocklist or the external_id now
    // say (docs/adr/0032-order-metadata.md): it is the order this request already made.
    try {
      await this.checkEndUser(input.endUserIp);
      if (input.externalId !== undefined) await this.checkExternalId(partner, input.sandbox, input.externalId);
      const order = await this.createNew(partner, input, idempotency?.key);
      return { order, replayed: false };
    } catch (error) {
      // The first request with this key outlived its claim's lease and completed meanwhile (its
      // process was slow, not gone): nothing of this one was written; it answers that order.
      if (error instanceof IdempotencyKeyCompleted) return { order: await this.replay(partner, input, error.orderId), replayed: true };
      if (idempotency !== undefined) await this.idempotency.release(partner.id, idempotency.key);
      // Another creation with the same external_id got in between the check and the insert.
      if (error instanceof ExternalIdConflict) throw externalIdConflict(error.orderId);
      throw error;
    }
  }

  /** 403 region_restricted when the end user's address is in the operator's blocklist. */
  private async checkEndUser(ip: EndUserIp | undefined): Promise<void> {
    if (ip === undefined) return;
    const refusal = await this.blocklist.refusal(ip);
    if (refusal !== undefined) throw new ApiError('region_restricted', refusal);
  }

  /**
   * 409 external_id_conflict before any pricing: a partner retrying a creation that succeeded
   * learns its order's id first, even when the retry would now fail otherwise (an expired quote,
   * the open-order cap). create_partner_order checks it again, exactly, for two racing creations.
   */
  private async checkExternalId(partner: PartnerRow, sandbox: boolean, externalId: string): Promise<void> {
    const existing = await orderWithExternalId(this.db, { partnerId: partner.id, sandbox }, externalId);
    if (existing !== undefined) throw externalIdConflict(existing);
  }

  private async replay(partner: PartnerRow, input: CreateOrderInput, orderId: string): Promise<PartnerOrderRow> {
    const order = await findPartnerOrderView(this.db, { partnerId: partner.id, createdBy: input.clientKey === true ? input.keyId : undefined }, { id: orderId });
    if (order === undefined && input.clientKey === true) {
      throw new ApiError('unprocessable', 'this Idempotency-Key was used by another of the partner\'s keys: use another key');
    }
    if (order === undefined) throw new Error(`idempotency record points at missing order ${orderId}`);
    // Keys are per partner, so a live key could replay a sandbox key's request: answering it
    // with a test order would have real funds sent to an order that never runs live.
    if (order.sandbox !== input.sandbox) {
      throw new ApiError(
        'unprocessable',
        `this Idempotency-Key was used by a ${order.sandbox ? 'sandbox' : 'live'} key for order ${order.id}: use another key`,
      );
    }
    return order;
  }

  /**
   * By UUID or short id (case-insensitive); anything else, another partner's order, or (for a
   * key) an order of the other mode (docs/contract.md §10.2) is 404. Only the columns the partner's view
   * shows.
   */
  async get(access: OrderReader, orderId: string): Promise<PartnerOrderRow> {
    const { owner, by } = partnerOrderKey(access, orderId);
    const order = await findPartnerOrderView(this.db, owner, by);
    if (order === undefined) throw new ApiError('not_found', 'order not found');
    return order;
  }

  /** An order's recorded moves, oldest first (the timeline of an order read with `get`). */
  timeline(orderId: string): Promise<OrderEventListing[]> {
    return listOrderEvents(this.db, orderId);
  }

  /**
   * The order behind a status link (docs/contract.md §10.10), as its public view reads it; 404 for any
   * other token. A token that is not of the form the service makes is not looked up.
   */
  async findByStatusToken(token: string): Promise<PublicOrderRow & { version: number }> {
    const order = STATUS_TOKEN_PATTERN.test(token) ? await findPublicOrder(this.db, token) : undefined;
    if (order === undefined) throw new ApiError('not_found', 'no order has this status link');
    return order;
  }

  /**
   * POST /partner/orders/status (docs/contract.md §10.11): each of `ids` that is an order this access
   * reads, with its status (as GET shows it at `now`), version and updated_at, in one read; any
   * other id (unknown, another partner's, the other mode's, another key's for a client key, not
   * a UUID) is left out. In the order of `ids`.
   */
  async statuses(access: OrderReader, ids: readonly string[], now: Date): Promise<OrderStatusLine[]> {
    const wanted = orderIdList(ids);
    const rows = new Map((await orderVersions(this.db, ownerOf(access), wanted)).map((row) => [row.id, row]));
    return wanted.flatMap((id) => {
      const row = rows.get(id);
      if (row === undefined) return [];
      return [{ id, status: statusAt(row.status, row.expires_at, now), version: row.version, updated_at: row.updated_at.toISOString() }];
    });
  }

  private async createNew(partner: PartnerRow, input: CreateOrderInput, idempotencyKey: string | undefined): Promise<PartnerOrderRow> {
    const { priced, quoteId } = await this.checkRequest(partner, input);
    for (let shortIdCollisions = 0, retired = 0; ; ) {
      try {
        return await this.insert(partner, { ...input, quoteId }, priced, idempotencyKey);
      } catch (error) {
        // A short-id collision (1 in ~2e9 per pair of orders) is retried with a new id.
        if (isUniqueViolation(error, 'orders_short_id_key') && ++shortIdCollisions < SHORT_ID_ATTEMPTS) continue;
        // The stock's address was retired meanwhile (insert did not give it back): the next one.
        if (isUniqueViolation(error, RETIRED_ADDRESS_CONSTRAINT) && ++retired < RETIRED_ADDRESS_ATTEMPTS) continue;
        // Two requests with one quote_id both passed the check above: the unique index decides.
        if (isUniqueViolation(error, 'orders_quote_id_key')) {
          throw quoteInvalid('the quote was already used for an order');
        }
        throw error;
      }
    }
  }

  /**
   * Every check of a new order, in v1.1's order (pair, recipient, refund address, amount or
   * quote), each problem recorded rather than ending the request, so the 4xx lists them all
   * (docs/contract.md §10.4: a bad recipient and a bad refund address are two items) and answers the
   * first, as v1.1 did. A check that needs what an earlier one could not give (a side's row, a
   * usable pair) is skipped.
   */
  private async checkRequest(partner: PartnerRow, input: CreateOrderInput): Promise<{ priced: PricedQuote; quoteId: string | undefined }> {
    const problems = new ProblemList();
    const { from, to, usable } = this.quotes.resolvePairInto(input, problems);
    if (to !== undefined) problems.check(() => checkRecipientAddress(to, input));
    if (from !== undefined) problems.check(() => checkRefund(from, input));
    let checked: { priced: PricedQuote; quoteId: string | undefined } | undefined;
    if (from !== undefined && to !== undefined && usable) {
      // A locked quote's order stores the quote's own id (its spent record), not the token sent.
      checked =
        input.quoteId === undefined
          ? problems.check(() => ({
              priced: this.quotes.pricePair(from, to, { amount: input.amountFrom, amountTo: input.amountTo, rateType: input.rateType, partner }, ORDER_AMOUNT_FIELDS),
              quoteId: undefined,
            }))
          : await problems.checkAsync(() => this.lockedQuote(partner, from, to, input));
      // A locked quote too: the wallet may have run short since it was given (docs/contract.md §11.7).
      const priced = checked?.priced;
      if (priced !== undefined) problems.check(() => this.quotes.checkLiquidity(priced, input.sandbox === true));
    }
    problems.throwIfAny();
    if (checked === undefined) throw new Error('an order request without problems was not priced');
    return checked;
  }

  /**
   * One statement (create_partner_order, migration 0028) writes order, deposit address, creation
   * event, idempotency record and the webhook outbox rows, and checks the open-order cap: an
   * hd or memo address comes from the chain's stock, made ahead, so the statement runs alone in
   * its implicit transaction. A pool row is claimed first, so that claim and the statement share
   * a transaction.
   */
  private async insert(
    partner: PartnerRow,
    input: CreateOrderInput,
    priced: PricedQuote,
    idempotencyKey: string | undefined,
  ): Promise<PartnerOrderRow> {
    const now = this.clock.now();
    // A sandbox order's address is keyless and made here (docs/contract.md §7.6): no stock, no pool row.
    const pool = !input.sandbox && this.addresses.usesPool(priced.from);
    const stocked = input.sandbox ? this.addresses.sandbox(priced.from) : pool ? undefined : await this.addresses.reserve(priced.from);
    try {
      if (stocked !== undefined) return await createPartnerOrder(this.db, this.creation(partner, input, priced, stocked, idempotencyKey, now));
      return await this.db.transaction().execute(async (tx: Db) => {
        const deposit = await this.addresses.claimPool(tx, priced.from, partner.id);
        return createPartnerOrder(tx, this.creation(partner, input, priced, deposit, idempotencyKey, now));
      });
    } catch (error) {
      // Given back only when the database certainly wrote nothing; otherwise the index is a gap.
      // An address someone already has (retired by a chain watcher) is never given back.
      if (stocked !== undefined && certainlyRefused(error) && !isUniqueViolation(error, RETIRED_ADDRESS_CONSTRAINT)) this.addresses.giveBack(stocked);
      if (error instanceof OpenOrdersOverCap) throw this.overCap(partner, error.others);
      throw error;
    }
  }

  /** The rows of a new order, as create_partner_order takes them. */
  private creation(
    partner: PartnerRow,
    input: CreateOrderInput,
    priced: PricedQuote,
    deposit: ReservedAddress,
    idempotencyKey: string | undefined,
    now: Date,
  ): OrderCreation {
    const id = randomUUID();
    const order: NewOrderRow = {
      id,
      short_id: newShortId(this.shortIdPrefix),
      partner_id: partner.id,
      status: 'waiting_deposit',
      status_reason: null,
      version: 0,
      currency_from_id: priced.from.id,
      currency_to_id: priced.to.id,
      coin_from: priced.from.coin,
      network_from: priced.from.network,
      coin_to: priced.to.coin,
      network_to: priced.to.network,
      rate_type: priced.rateType,
      amount_from_expected: priced.amountFrom.toFixed(),
      amount_to_expected: priced.amountTo.toFixed(),
      rate_quoted: priced.rate.toFixed(),
      exact_rate: priced.exactRate.toFixed(),
      quote_id: input.quoteId ?? null,
      markup_bps: priced.markupBps,
      // What the quote told of cost and time, kept as told (docs/contract.md §10.6).
      network_fee: priced.networkFee.toFixed(),
      network_fee_usd: priced.networkFeeUsd.toFixed(),
      eta_seconds: priced.etaSeconds,
      deposit_address: deposit.address,
      deposit_address_tag: deposit.tag,
      deposit_uri: depositPaymentUri({
        addressFormat: priced.from.address_format,
        chain: priced.from.chain,
        tokenContract: priced.from.token_contract,
        decimals: priced.from.decimals,
        address: deposit.address,
        tag: deposit.tag,
        amount: priced.amountFrom.toFixed(),
      }),
      recipient_address: input.recipientAddress,
      recipient_address_tag: input.recipientAddressTag ?? null,
      refund_address: input.refundAddress ?? null,
      refund_address_tag: input.refundAddress === undefined ? null : (input.refundAddressTag ?? null),
      deposit_txid: null,
      deposit_confirmations: null,
      deposit_confirmations_required: priced.from.min_confirmations,
      amount_from_received: null,
      payout_txid: null,
      refund_txid: null,
      sandbox: input.sandbox,
      external_id: input.externalId ?? null,
      metadata: input.metadata ?? {},
      end_user_ip: input.endUserIp?.address ?? null,
      created_by_key_id: input.keyId,
      status_token: newStatusToken(),
      created_at: now,
      expires_at: new Date(now.getTime() + DEPOSIT_WINDOW_MS),
      updated_at: now,
    };
    return {
      order,
      deposit:
        deposit.poolRowId !== null
          ? { pool_row_id: deposit.poolRowId }
          : { chain: deposit.chain, strategy: deposit.strategy === 'pool' ? 'memo' : deposit.strategy, derivation_index: deposit.derivationIndex },
      event: {
        id: randomUUID(),
        order_id: id,
        from_status: null,
        to_status: 'waiting_deposit',
        reason: 'created',
        order_version: 0,
        data: {
          rate_type: priced.rateType,
          quote_id: input.quoteId ?? null,
          derivation_index: deposit.derivationIndex,
          ...(input.sandbox ? { sandbox: true } : {}),
        },
        actor: 'partner',
        actor_key_id: input.keyId,
        created_at: now,
      },
      idempotencyKey: idempotencyKey ?? null,
      maxOpenOrders: partner.max_open_orders ?? this.defaultMaxOpenOrders,
      webhookEvent: { id: newWebhookMessageId(), payload: orderEventBody('order.created', now, createdOrderView(order), null, this.linkBase) },
    };
  }

  /**
   * Pool drain: a partner may have only so many orders awaiting a deposit, so one key
   * cannot take every address of a shared pool (or fill the table) and leave other partners'
   * orders failing. create_partner_order counts them after writing the order, with the
   * partner's row locked until the commit: concurrent creations of one partner count one after
   * the other (each sees the others' committed orders and its own), so the cap holds exactly,
   * while the lock is held only for the count and the commit (holding it for a whole
   * transaction made one partner's orders one at a time). A refused order's address goes back
   * to the stock, so refusals leave no gap in the operator's wallet.
   */
  private overCap(partner: PartnerRow, others: number): ApiError {
    const cap = partner.max_open_orders ?? this.defaultMaxOpenOrders;
    return new ApiError(
      'open_orders_limit',
      `too many open orders: ${others} are awaiting a deposit and this account may have ${cap} at once; ` +
        'wait until some are paid or expire (after 30 minutes), or ask the operator for a higher limit',
    );
  }

  /**
   * A fixed order with quote_id keeps the quoted rate: the quote must be one this service signed,
   * live, the caller's (or asked without a key), for this pair and amount, and not spent. Spent
   * means an order holds its id; two orders racing past this check meet the unique index.
   */
  private async lockedQuote(partner: PartnerRow, from: CurrencyRow, to: CurrencyRow, input: CreateOrderInput): Promise<{
    priced: PricedQuote;
    quoteId: string;
  }> {
    const quote = this.quotes.openFixedQuote(input.quoteId ?? '');
    if (quote === 'malformed' || quote === 'forged') {
      throw quoteInvalid('quote_id is not a quote from GET /partner/rates, or it was altered');
    }
    if (input.rateType !== 'fixed') throw quoteInvalid('quote_id can only be used with rate_type fixed');
    if (quote.expiresAtMs <= this.clock.now().getTime()) throw quoteInvalid('the quote has expired: ask for a new one');
    if (quote.partnerId !== null && quote.partnerId !== partner.id) {
      throw quoteInvalid('the quote was issued to another caller');
    }
    if (quote.currencyFromId !== from.id || quote.currencyToId !== to.id) {
      throw quoteInvalid('the quote is for another pair');
    }
    if (input.amountTo === undefined) {
      if (input.amountFrom === undefined || !quote.amountFrom.eq(input.amountFrom)) {
        throw quoteInvalid(`the quote is for amount_from ${quote.amountFrom.toFixed()}`);
      }
    } else if (!reverseQuoteMatches(quote, input.amountTo)) {
      throw quoteInvalid(`the quote is for amount_to ${(quote.amountToRequested ?? quote.amountTo).toFixed()}`);
    }
    if ((await orderUsingQuote(this.db, quote.id)) !== undefined) {
      throw quoteInvalid('the quote was already used for an order');
    }
    const limits = this.quotes.pricePair(from, to, { amount: quote.amountFrom, rateType: 'fixed', partner }, ORDER_AMOUNT_FIELDS);
    return {
      priced: {
        ...limits,
        amountFrom: quote.amountFrom,
        amountTo: quote.amountTo,
        rate: quote.rate,
        exactRate: quote.exactRate,
        // The order earns the markup its quote was priced with, not the partner's now.
        markupBps: this.quotes.fixedQuoteMarkup(quote, partner),
      },
      quoteId: quote.id,
    };
  }
}

/** 409 with the existing order's id in `order_id` (docs/contract.md §10.8). */
function externalIdConflict(orderId: string): ApiError {
  return new ApiError(
    'external_id_conflict',
    `external_id is already used by order ${orderId}: read that order, or send another external_id`,
    { order_id: orderId },
  );
}

/** One line of POST /partner/orders/status. */
export interface OrderStatusLine {
  id: string;
  status: OrderStatus;
  version: number;
  updated_at: string;
}

/** The ids of a stream or status read: UUIDs, lower case, each once, in the order given; anything else is no order. */
export function orderIdList(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.trim().toLowerCase()).filter((id) => UUID_PATTERN.test(id)))];
}

/** Whose orders a read reaches: the partner's, of the key's mode only (PartnerAccess). */
export type OrderReader = Pick<PartnerAccess, 'partner' | 'mode' | 'onlyCreatedBy'>;

function ownerOf(access: OrderReader): OrderOwner {
  return { partnerId: access.partner.id, sandbox: sandboxScope(access), createdBy: access.onlyCreatedBy };
}

/**
 * Which order a partner's read asks for, and whose it may be (the query's filter): by UUID or
 * short id (case-insensitive); anything else is 404, as another partner's order or (for a key)
 * an order of the other mode (docs/contract.md §10.2) is.
 */
export function partnerOrderKey(access: OrderReader, orderId: string): { owner: OrderOwner; by: { id: string } | { shortId: string } } {
  const owner = ownerOf(access);
  if (UUID_PATTERN.test(orderId)) return { owner, by: { id: orderId.toLowerCase() } };
  if (!SHORT_ID_PATTERN.test(orderId)) throw new ApiError('not_found', 'order not found');
  refuseShortIdForClientKey(access);
  return { owner, by: { shortId: orderId.toUpperCase() } };
}

/**
 * A client key reads orders by UUID only (docs/contract.md §10.9): anyone may hold it, and short ids, being
 * short, could be walked to find other users' orders made through the same app.
 */
function refuseShortIdForClientKey(access: OrderReader): void {
  if (access.onlyCreatedBy === undefined) return;
  throw new ApiError('scope', 'a client key reads an order by its id (the UUID the order was created with), not by its short_id');
}

/**
 * An order by amount_to matches a fixed quote when it sends the amount_to the quote was asked for
 * (a reverse quote) or the amount_to the quote answered: both name the quote's amount_from.
 */
function reverseQuoteMatches(quote: FixedQuoteClaim, amountTo: Decimal): boolean {
  return (quote.amountToRequested !== undefined && amountTo.eq(quote.amountToRequested)) || amountTo.eq(quote.amountTo);
}

/** What an order body calls its amounts (the items of its amount errors). */
const ORDER_AMOUNT_FIELDS: AmountFieldNames = { amount: 'amount_from', amountTo: 'amount_to' };

/** A 422 quote_invalid, its item on quote_id. */
function quoteInvalid(detail: string): ApiError {
  return ApiError.field('quote_invalid', { code: 'quote_invalid', field: 'quote_id' }, detail);
}

/** The recipient by coin_to's rules: 400 with its item (address_invalid, memo_required, memo_invalid). */
function checkRecipientAddress(to: CurrencyRow, input: CreateOrderInput): void {
  const recipient = checkRecipient(to, input.recipientAddress, input.recipientAddressTag);
  if (recipient.ok) return;
  switch (recipient.problem) {
    case 'invalid_address':
      throw ApiError.field(
        'bad_request',
        { code: 'address_invalid', field: 'recipient_address' },
        `recipient_address is not a valid ${to.network} address: ${recipient.reason}`,
      );
    case 'memo_not_used':
      throw ApiError.field('bad_request', { code: 'memo_invalid', field: 'recipient_address_tag' }, `recipient_address_tag: ${to.network} does not use a memo`);
    case 'invalid_tag':
      throw ApiError.field('bad_request', { code: 'memo_invalid', field: 'recipient_address_tag' }, `recipient_address_tag is not valid: ${recipient.reason}`);
    case 'memo_required':
      throw ApiError.field(
        'bad_request',
        { code: 'memo_required', field: 'recipient_address_tag' },
        `recipient_address_tag is required: ${to.network} needs a memo or destination tag`,
      );
  }
}

/** The refund address's rule is the PUT's: its tag checked, and required on memo chains. */
function checkRefund(from: CurrencyRow, input: CreateOrderInput): void {
  if (input.refundAddress !== undefined) checkRefundAddress(from, input.refundAddress, input.refundAddressTag);
  else if (input.refundAddressTag !== undefined) {
    throw ApiError.field('bad_request', { code: 'bad_request', field: 'refund_address_tag' }, 'refund_address_tag is given without refund_address');
  }
}

/** The database refused the order's statement and wrote nothing (the cap, or a constraint of class 23). */
/**
 * The partner's view of an order as create_partner_order stores it, read off the row it is given:
 * the webhook body is written before the statement, so the event can be stored in it. A column
 * the creation leaves out is null there (jsonb_populate_record applies no default). The numerics
 * are the service's own text, at most 18 decimals like the columns (numeric(38, 18)), so the
 * stored values are these and the JSON writer prints them alike (test/webhooks: the body equals
 * GET's).
 */
function createdOrderView(order: NewOrderRow): PartnerOrderRow {
  return {
    id: order.id,
    short_id: order.short_id,
    status: order.status,
    status_token: order.status_token,
    version: order.version,
    expires_at: order.expires_at,
    created_at: order.created_at,
    updated_at: order.updated_at,
    coin_from: order.coin_from,
    network_from: order.network_from,
    coin_to: order.coin_to,
    network_to: order.network_to,
    amount_from_expected: order.amount_from_expected,
    amount_to_expected: order.amount_to_expected,
    rate_type: order.rate_type,
    rate_quoted: order.rate_quoted,
    deposit_address: order.deposit_address,
    deposit_address_tag: order.deposit_address_tag ?? null,
    deposit_uri: order.deposit_uri ?? null,
    recipient_address: order.recipient_address,
    recipient_address_tag: order.recipient_address_tag ?? null,
    deposit_txid: order.deposit_txid ?? null,
    deposit_confirmations: order.deposit_confirmations ?? null,
    deposit_confirmations_required: order.deposit_confirmations_required,
    payout_txid: order.payout_txid ?? null,
    amount_from_received: order.amount_from_received ?? null,
    refund_txid: order.refund_txid ?? null,
    status_reason: order.status_reason ?? null,
    sandbox: order.sandbox ?? false,
    refund_address: order.refund_address ?? null,
    refund_address_tag: order.refund_address_tag ?? null,
    refund_hold_until: null,
    partner_fee: null,
    partner_fee_usd: null,
    amount_to_final: null,
    rate_final: null,
    amount_refunded: null,
    network_fee: order.network_fee ?? null,
    network_fee_usd: order.network_fee_usd ?? null,
    eta_seconds: order.eta_seconds ?? null,
    external_id: order.external_id ?? null,
    metadata: typeof order.metadata === 'object' ? order.metadata : {},
  };
}

function certainlyRefused(error: unknown): boolean {
  if (error instanceof OpenOrdersOverCap || error instanceof IdempotencyKeyCompleted || error instanceof ExternalIdConflict) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('23');
}

/** The unique index on (chain, address, tag) of deposit_addresses (migration 0004). */
const RETIRED_ADDRESS_CONSTRAINT = 'deposit_addresses_unique_idx';

