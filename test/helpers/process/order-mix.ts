import { demoAddress } from '../../../src/domain/deposit-addresses/demo-addresses.js';
import { createDemoXpubs } from '../../../src/domain/deposit-addresses/index.js';

/**
 * DEPOSIT_XPUB_* / DEPOSIT_ADDRESS_* for the chains the order mix uses: production
 * (DATABASE_URL) gets no demo wallet, so a multi-process run configures one like an operator
 * would (public keys of a throwaway seed; nothing can be spent from them). And
 * SIMULATE_LIVE_PAYOUTS=true: no chain has a payout path under DATABASE_URL before the signer
 * (docs/contract.md §11.1), and these runs pay their orders on the simulator on purpose.
 */
export function depositWalletEnv(): Record<string, string> {
  const xpubs = createDemoXpubs();
  return {
    SIMULATE_LIVE_PAYOUTS: 'true',
    DEPOSIT_XPUB_BTC: xpubs.bitcoin,
    DEPOSIT_XPUB_LTC: xpubs.litecoin,
    DEPOSIT_XPUB_ETH: xpubs.evm,
    DEPOSIT_ADDRESS_XRP: demoAddress('xrp'),
  };
}

/**
 * The order mix: BTC, ETH and LTC sources (hd derivation) and XRP (shared address + memo
 * tag), float and fixed, including a memo destination that needs a recipient tag.
 * `ORDER_MIX[i % ORDER_MIX.length]` is the i-th order's body.
 */
export const ORDER_MIX: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  {
    coin_from: 'BTC', network_from: 'BTC', coin_to: 'ETH', network_to: 'ETH', amount_from: 0.01, rate_type: 'float',
    recipient_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  },
  {
    coin_from: 'ETH', network_from: 'ETH', coin_to: 'BTC', network_to: 'BTC', amount_from: 0.2, rate_type: 'fixed',
    recipient_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  },
  {
    coin_from: 'LTC', network_from: 'LTC', coin_to: 'XRP', network_to: 'XRP', amount_from: 5, rate_type: 'float',
    recipient_address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', recipient_address_tag: '12345',
  },
  {
    coin_from: 'XRP', network_from: 'XRP', coin_to: 'LTC', network_to: 'LTC', amount_from: 1000, rate_type: 'float',
    recipient_address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
  },
];
