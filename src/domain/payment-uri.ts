import type { AddressFormat } from './address-format.js';
import { evmChainId } from './evm-chain-ids.js';
import { Decimal } from './money.js';

/** What a deposit's payment URI is made of: the deposit currency's catalog row and the order's deposit. */
export interface PaymentUriInput {
  addressFormat: AddressFormat;
  /** Catalog chain code (ETH, BSC, ...): names the EIP-155 chain of an EVM network. */
  chain: string;
  /** Token contract (ERC-20/BEP-20) or mint (SPL); null for the native coin. */
  tokenContract: string | null;
  /** The coin's on-chain decimals: an EIP-681 amount is in atomic units (wei, 10^-decimals). */
  decimals: number;
  address: string;
  /** Destination tag (XRP) or memo (XLM, TON); null when the network has none. */
  tag: string | null;
  /** The amount to send, in coin units, as exact decimal text (never a binary float). */
  amount: string;
}

/**
 * The chain's standard payment URI for a deposit (docs/contract.md §7.4), or null where the chain has
 * none a wallet would read (TRON), or where the parts cannot be written in it (an EVM chain with
 * no known chain id, an amount finer than the coin's atomic unit). A QR code of it lets a
 * wallet fill in address, amount, token and tag at once: a forgotten tag is a lost deposit.
 * - BIP-21 (bitcoin:, litecoin:, dogecoin:): `amount` in coins.
 * - EIP-681 (ETH, ERC-20, BNB, BEP-20): native `ethereum:<addr>@<chainId>?value=<wei>`, token
 *   `ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<atomic>`; integers only, so
 *   no wallet has to guess the decimals.
 * - Solana Pay: `solana:<addr>?amount=<coins>` (+ `spl-token=<mint>`).
 * - XRP: `ripple:<addr>?amount=<XRP>&dt=<tag>` (the XRP Ledger's URI, dt = destination tag).
 * - XLM: SEP-0007 `web+stellar:pay?destination=…&amount=…&memo=…&memo_type=MEMO_ID|MEMO_TEXT`.
 * - TON: `ton://transfer/<addr>?amount=<nanoton>&text=<memo>` (TON's transfer deeplink).
 */
export function depositPaymentUri(input: PaymentUriInput): string | null {
  const amount = new Decimal(input.amount);
  if (!amount.isFinite() || amount.isNegative()) return null;
  const coins = amount.toFixed();
  switch (input.addressFormat) {
    case 'bitcoin':
    case 'litecoin':
    case 'dogecoin':
      return `${input.addressFormat}:${input.address}?amount=${coins}`;
    case 'evm': {
      const chainId = evmChainId(input.chain, input.addressFormat);
      const atomic = atomicUnits(amount, input.decimals);
      if (chainId === null || atomic === null) return null;
      return input.tokenContract === null
        ? `ethereum:${input.address}@${chainId}?value=${atomic}`
        : `ethereum:${input.tokenContract}@${chainId}/transfer?address=${input.address}&uint256=${atomic}`;
    }
    case 'solana':
      return `solana:${input.address}?amount=${coins}` + (input.tokenContract === null ? '' : `&spl-token=${input.tokenContract}`);
    case 'xrp':
      return `ripple:${input.address}?amount=${coins}` + (input.tag === null ? '' : `&dt=${encodeURIComponent(input.tag)}`);
    case 'stellar': {
      const memo = input.tag === null ? '' : `&memo=${encodeURIComponent(input.tag)}&memo_type=${/^[0-9]+$/.test(input.tag) ? 'MEMO_ID' : 'MEMO_TEXT'}`;
      return `web+stellar:pay?destination=${input.address}&amount=${coins}${memo}`;
    }
    case 'ton': {
      const atomic = atomicUnits(amount, input.decimals);
      if (atomic === null) return null;
      return `ton://transfer/${input.address}?amount=${atomic}` + (input.tag === null ? '' : `&text=${encodeURIComponent(input.tag)}`);
    }
    case 'tron':
      return null;
  }
}

/** `amount` × 10^decimals as integer text, or null when it is finer than one atomic unit. */
function atomicUnits(amount: Decimal, decimals: number): string | null {
  const atomic = amount.times(new Decimal(10).pow(decimals));
  return atomic.isInteger() ? atomic.toFixed(0) : null;
}
