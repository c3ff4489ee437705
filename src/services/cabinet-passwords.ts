import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { WorkGate } from './work-gate.js';

/**
 * Cabinet passwords: argon2id with OWASP's minimum parameters (19 MiB, 2 passes, 1 lane), in
 * @node-rs/argon2, a native binding that runs on libuv's thread pool: about 20 ms a hash on
 * this project's machine against 230 ms for @noble/hashes' pure-JS argon2id, which also holds
 * the event loop for that long (docs/adr/0021-partner-cabinet.md).
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

/**
 * argon2 work at once in this process, and waiting: every hash and verification
 * runs through this gate, so a flood of password checks (from any number of addresses, each
 * within its sign-in budget) holds at most 2 of libuv's 4 pool threads and 2 × 19 MiB, and
 * the API's own use of the pool (DNS lookups, file reads, crypto) is never starved. Past 2
 * running and 8 waiting the check is refused at once (WorkGateFull: the cabinet answers 429
 * with Retry-After) instead of piling up (docs/adr/0021-partner-cabinet.md).
 */
export const PASSWORD_WORK_CONCURRENCY = 2;
export const PASSWORD_WORK_QUEUE = 8;
export const passwordWork = new WorkGate(PASSWORD_WORK_CONCURRENCY, PASSWORD_WORK_QUEUE, 'password checks');

/** ASVS 2.1.1 and 2.1.2: at least 12 characters; at least 64 allowed (we allow 128). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
/** zxcvbn's score (0..4) a password must reach: 3 is "safely unguessable" (about 10^8 guesses or more). */
const MIN_SCORE = 3;

const strength = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });

/** What is wrong with `password` for this person, in words for them; undefined when it is strong enough. */
export function passwordProblem(password: string, email: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if ([...password].length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  const result = strength.check(password, [email, ...email.split(/[@.+_-]/), 'exchange', 'cabinet', 'partner']);
  if (result.score >= MIN_SCORE) return undefined;
  // zxcvbn's feedback comes as translation keys (a language pack would add 1 MB for a hint).
  return 'This password is too easy to guess: it is close to common passwords, words or patterns, or to your email. A few unrelated words make a strong one.';
}

export function hashPassword(password: string): Promise<string> {
  return passwordWork.run(() => hash(password, ARGON2));
}

/**
 * Compared against when the email is unknown, so an unknown account and a wrong password take
 * the same time (no account enumeration by timing).
 */
let dummyHash: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash, does the same work and says no. */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  if (stored === undefined) {
    // Made once per process, outside the gate (a refusal must not be remembered as the hash).
    dummyHash ??= hash('not a real password, only work', ARGON2);
    const dummy = await dummyHash;
    await passwordWork.run(() => verify(dummy, password).catch(() => false));
    return false;
  }
  return passwordWork.run(() => verify(stored, password).catch(() => false));
}
