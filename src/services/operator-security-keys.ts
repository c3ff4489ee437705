import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import {
  deleteOperatorSecurityKey,
  findOperatorSecurityKeyByCredential,
  insertOperatorSecurityKey,
  listOperatorSecurityKeys,
  putWebauthnChallenge,
  recordOperatorSecurityKeyUse,
  takeWebauthnChallenge,
} from '../db/repositories/operator-security-keys-repository.js';
import type { Database } from '../db/schema/index.js';
import type { OperatorSecurityKeyRow, WebauthnPurpose } from '../db/schema/operator-security-keys.js';

/** How long a ceremony's challenge is good for (and how long the browser is told to wait). */
export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * 60_000;
/**
 * EdDSA, ES256, RS256: the library's default but for ML-DSA-44, which it offers where the runtime
 * has it, and probing for which prints Node's experimental-feature warning on every call.
 */
const ALGORITHMS = [-8, -7, -257];
/** The longest name a person gives a key (the table's check says the same). */
export const SECURITY_KEY_NAME_MAX = 60;

/** Where the console's WebAuthn credentials are bound: RP ID and origin from PUBLIC_URL. */
export interface RelyingParty {
  /** The host of PUBLIC_URL: the domain credentials are registered for. */
  id: string;
  /** PUBLIC_URL's origin: the only origin a ceremony's client data may name. */
  origin: string;
  name: string;
}

const TRANSPORTS = new Set(['usb', 'nfc', 'ble', 'smart-card', 'hybrid', 'internal', 'cable']);

/**
 * The relying party PUBLIC_URL gives; undefined without PUBLIC_URL or when its host is an IP
 * address (WebAuthn's RP ID is a domain; credentials bound to a host the request happened to
 * name would stop working when it is reached another way, so there is no fallback to the request).
 */
export function relyingPartyOf(publicUrl: string | undefined): RelyingParty | undefined {
  if (publicUrl === undefined) return undefined;
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return undefined;
  return { id: host, origin: url.origin, name: 'Exchange operator console' };
}

/** A person's key as the account page lists it. */
export type ListedSecurityKey = Pick<OperatorSecurityKeyRow, 'id' | 'name' | 'created_at' | 'last_used_at'>;

export type SecurityKeyRegistration = { ok: true; id: string } | { ok: false; problem: string };

/** The browser's JSON answer of a ceremony, parsed; undefined when it is not even an object with an id. */
function parseCeremonyAnswer<T extends { id: string }>(text: string): T | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** A person's UUID as the 16 bytes of the WebAuthn user handle (random already, and no email in it). */
const userHandle = (personId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(personId.replace(/-/g, ''), 'hex'));

/**
 * The operator people's WebAuthn security keys (docs/adr/0063-operator-security-keys.md), a
 * second factor beside TOTP: registration on the account page of an open session, an assertion
 * instead of the TOTP code at sign-in. Never passwordless: the password comes first, always.
 * Each ceremony's challenge is kept server-side for its session and purpose, taken once (even
 * when the answer then fails) and refused after WEBAUTHN_CHALLENGE_TTL_MS. The library checks
 * the challenge, origin, RP ID, user presence, signature and the counter (an assertion whose
 * counter is not above a nonzero stored one is refused); attestation is not asked for ('none').
 */
export class OperatorSecurityKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** Undefined: keys are off (no PUBLIC_URL with a domain), and pages say so. */
    readonly relyingParty: RelyingParty | undefined,
  ) {}

  /**
   * The account page's keys of the session's person, and the options of
   * navigator.credentials.create for adding one (their challenge replaces the session's earlier
   * registration challenge; undefined when keys are off). One read of the keys serves both.
   */
  async forAccountPage(
    sessionId: string,
    person: { id: string; email: string; name: string | null },
  ): Promise<{ keys: ListedSecurityKey[]; options: PublicKeyCredentialCreationOptionsJSON | undefined }> {
    const keys = await listOperatorSecurityKeys(this.db, person.id);
    return { keys, options: await this.registrationOptions(sessionId, person, keys) };
  }

  private async registrationOptions(
    sessionId: string,
    person: { id: string; email: string; name: string | null },
    keys: readonly OperatorSecurityKeyRow[],
  ): Promise<PublicKeyCredentialCreationOptionsJSON | undefined> {
    const rp = this.relyingParty;
    if (rp === undefined) return undefined;
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: person.email,
      userID: userHandle(person.id),
      userDisplayName: person.name ?? person.email,
      timeout: WEBAUTHN_CHALLENGE_TTL_MS,
      attestationType: 'none',
      // The same authenticator twice would be one factor counted twice.
      excludeCredentials: keys.map((key) => ({ id: key.credential_id, transports: key.transports })),
      // A second factor after the password: no resident (discoverable) credential, no PIN asked for.
      authenticatorSelection: { residentKey: 'discouraged', requireResidentKey: false, userVerification: 'discouraged' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.keepChallenge(sessionId, 'registration', options.challenge);
    return options;
  }

  /** Verifies the browser's answer to the session's registration options and stores the key under `name`. */
  async register(sessionId: string, personId: string, name: string, answer: string): Promise<SecurityKeyRegistration> {
    const rp = this.relyingParty;
    if (rp === undefined) return { ok: false, problem: 'Security keys are not available on this console (PUBLIC_URL is not set to a domain).' };
    const cleanName = name.trim();
    // The page's field requires a name before its script starts the ceremony: this refuses a form sent otherwise.
    if (cleanName.length < 1 || [...cleanName].length > SECURITY_KEY_NAME_MAX) return { ok: false, problem: `Give the key a name of 1 to ${SECURITY_KEY_NAME_MAX} characters.` };
    const expectedChallenge = await this.takeChallenge(sessionId, 'registration');
    if (expectedChallenge === undefined) return { ok: false, problem: 'The security key request expired or was used already. Try again.' };
    const response = parseCeremonyAnswer<RegistrationResponseJSON>(answer);
    if (response === undefined) return { ok: false, problem: 'The browser gave no answer from a security key. Try again.' };
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({ response, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: false, supportedAlgorithmIDs: ALGORITHMS });
    } catch {
      verified = { verified: false };
    }
    if (!verified.verified) return { ok: false, problem: 'The security key’s answer could not be verified. Try again.' };
    const { credential } = verified.registrationInfo;
    const id = await insertOperatorSecurityKey(this.db, {
      person_id: personId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey),
      sign_count: credential.counter,
      transports: (credential.transports ?? []).filter((transport) => TRANSPORTS.has(transport)).slice(0, 8),
      name: cleanName,
      created_at: this.clock.now(),
    });
    return id === undefined ? { ok: false, problem: 'This security key is registered already.' } : { ok: true, id };
  }

  /** Removes one of the person's keys: false when it is none of theirs. */
  remove(personId: string, id: string): Promise<boolean> {
    return deleteOperatorSecurityKey(this.db, personId, id);
  }

  /**
   * The options of navigator.credentials.get for a session pending its second factor: the
   * person's keys allowed, none other. Undefined when keys are off or the person has none.
   */
  async authenticationOptions(sessionId: string, personId: string): Promise<PublicKeyCredentialRequestOptionsJSON | undefined> {
    const rp = this.relyingParty;
    if (rp === undefined) return undefined;
    const keys = await listOperatorSecurityKeys(this.db, personId);
    if (keys.length === 0) return undefined;
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: keys.map((key) => ({ id: key.credential_id, transports: key.transports })),
      timeout: WEBAUTHN_CHALLENGE_TTL_MS,
      userVerification: 'discouraged',
    });
    await this.keepChallenge(sessionId, 'authentication', options.challenge);
    return options;
  }

  /**
   * Whether `answer` is an assertion of one of the person's keys over the session's challenge:
   * the challenge is used up whatever the outcome; on success the key's counter and last use are
   * written. A key of another person, a replayed or expired challenge, a counter that did not move
   * past a nonzero stored one: false.
   */
  async authenticate(sessionId: string, personId: string, answer: string): Promise<boolean> {
    const rp = this.relyingParty;
    if (rp === undefined) return false;
    const expectedChallenge = await this.takeChallenge(sessionId, 'authentication');
    const response = parseCeremonyAnswer<AuthenticationResponseJSON>(answer);
    if (expectedChallenge === undefined || response === undefined) return false;
    const key = await findOperatorSecurityKeyByCredential(this.db, response.id);
    if (key?.person_id !== personId) return false;
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>> | undefined;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: key.credential_id, publicKey: new Uint8Array(key.public_key), counter: key.sign_count, transports: key.transports },
        requireUserVerification: false,
      });
    } catch {
      verified = undefined;
    }
    if (verified?.verified !== true) return false;
    return recordOperatorSecurityKeyUse(this.db, key.id, key.sign_count, verified.authenticationInfo.newCounter, this.clock.now());
  }

  private keepChallenge(sessionId: string, purpose: WebauthnPurpose, challenge: string): Promise<void> {
    return putWebauthnChallenge(this.db, { session_id: sessionId, purpose, challenge, expires_at: new Date(this.clock.now().getTime() + WEBAUTHN_CHALLENGE_TTL_MS) });
  }

  /** The session's challenge for `purpose`, used up as it is read; undefined when there is none or it expired. */
  private async takeChallenge(sessionId: string, purpose: WebauthnPurpose): Promise<string | undefined> {
    const taken = await takeWebauthnChallenge(this.db, sessionId, purpose);
    return taken === undefined || taken.expires_at <= this.clock.now() ? undefined : taken.challenge;
  }
}
