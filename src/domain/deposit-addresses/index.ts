// Public surface of deposit-address derivation; import from here rather than the inner files.
export { HD_ACCOUNT_PATHS, HD_FORMATS, isHdFormat } from './hd-formats.js';
export type { HdFormat } from './hd-formats.js';
export { ExtendedKeyError, parseAccountXpub } from './parse-account-xpub.js';
export { deriveDepositAddress } from './derive-deposit-address.js';
export { createDemoXpubs } from './demo-xpubs.js';
export { sandboxDepositAddress } from './sandbox-addresses.js';
