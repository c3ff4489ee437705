import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** The options a console page hands its ceremony script (data-webauthn-options), as far as a key reads them. */
interface CeremonyOptions {
  challenge: string;
}

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array): string => Buffer.from(data).toString('base64url');

/** The ceremony options a console page carries, read back from its HTML (`kind`: the form's data-webauthn). */
export function pageCeremonyOptions(body: string, kind: 'register' | 'authenticate'): CeremonyOptions {
  const found = new RegExp(`data-webauthn="${kind}" data-webauthn-options="([^"]*)"`).exec(body)?.[1];
  if (found === undefined) throw new Error(`the page has no ${kind} ceremony form`);
  const text = found.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return JSON.parse(text) as CeremonyOptions;
}

/**
 * A security key in software, for tests without a browser: an ES256 key pair and a credential
 * id, answering a registration with 'none' attestation and an assertion signed as an
 * authenticator signs (authenticatorData = rpIdHash | flags | signCount [| attested credential],
 * then ECDSA over authenticatorData | SHA-256 of the client data). The answers are the JSON that
 * @simplewebauthn/browser's startRegistration and startAuthentication give the page.
 */
export class SoftSecurityKey {
  readonly credentialId = randomBytes(32);
  /** The counter the next assertion reports (then one more); a test may set it back. */
  signCount = 0;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly rpId: string;

  constructor(private readonly origin: string) {
    this.rpId = new URL(origin).hostname;
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The browser's answer to registration `options`, as the form's `credential` field carries it. */
  register(options: CeremonyOptions): string {
    const clientDataJSON = this.clientData('webauthn.create', options.challenge);
    const jwk = this.publicKey.export({ format: 'jwk' });
    // COSE_Key of an EC2 P-256 key for ES256: kty 2, alg -7, crv 1, x, y.
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    // Flags: user present (0x01) and attested credential data included (0x40).
    const authData = Buffer.concat([this.authenticatorData(0x41, this.signCount), Buffer.alloc(16), idLength, this.credentialId, coseKey]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return JSON.stringify({
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['usb'] },
    });
  }

  /** The browser's answer to authentication `options`, signed with the next counter; `origin` overrides the client data's. */
  assert(options: CeremonyOptions, overrides: { origin?: string } = {}): string {
    this.signCount += 1;
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const authenticatorData = this.authenticatorData(0x01, this.signCount);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return JSON.stringify({
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature) },
    });
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private authenticatorData(flags: number, count: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(count);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter]);
  }
}
