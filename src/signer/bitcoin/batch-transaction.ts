import { hex } from '@scure/base';
import type { HDKey } from '@scure/bip32';
import { Address, OutScript, p2wpkh, selectUTXO } from '@scure/btc-signer';
import { mainnetSignerNetworks, type SignerNetwork } from '../../chains/nodes/node-network-address.js';
import type { WalletUtxo } from './node-wallet.js';

/** One payout in a batch: where to, how many satoshis. */
export interface BatchPayout {
  id: string;
  /** As the service stores it: the mainnet spelling. */
  address: string;
  amount: bigint;
}

export type SignedBatch = {
  kind: 'signed';
  raw: string;
  txid: string;
  /** Satoshis. */
  fee: bigint;
  vsize: number;
  /** `txid:vout` of every input: reserved while the transaction is in flight. */
  inputs: string[];
};

/** What a batch is paid from: the wallet's coins, those in flight, the change index, the fee rate (sat/vB). */
export interface Coins {
  utxos: readonly WalletUtxo[];
  reserved: ReadonlySet<string>;
  changeIndex: number;
  feeRate: bigint;
}

/** The coins could not cover the payouts and their fee. */
export type Shortfall = { kind: 'insufficient' };

/** The output script of a mainnet address of the chain; throws on an address the chain does not have. */
export function outputScript(chain: string, address: string): Uint8Array {
  let lastError: unknown;
  for (const network of mainnetSignerNetworks(chain)) {
    try {
      return OutScript.encode(Address(network).decode(address));
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`not a ${chain} address the signer can pay: ${address} (${lastError instanceof Error ? lastError.message : String(lastError)})`);
}

/**
 * The hot wallet's keys of one BIP-84 (P2WPKH) chain: the account key and the scripts of its
 * receive (`/0/i`) and change (`/1/i`) addresses, derived once and kept, so a coin's script
 * tells which key spends it.
 */
export class SegwitAccount {
  private readonly network: SignerNetwork;
  private readonly byScript = new Map<string, { branch: 0 | 1; index: number }>();
  private derived: Record<0 | 1, number> = { 0: -1, 1: -1 };

  constructor(
    readonly chain: string,
    private readonly account: HDKey,
  ) {
    this.network = mainnetSignerNetworks(chain)[0] as SignerNetwork;
  }

  /** Makes sure addresses up to `index` of `branch` are known by script. */
  extend(branch: 0 | 1, index: number): void {
    for (let i = this.derived[branch] + 1; i <= index; i++) {
      this.byScript.set(hex.encode(this.payment(branch, i).script), { branch, index: i });
    }
    this.derived[branch] = Math.max(this.derived[branch], index);
  }

  /** The mainnet address of `branch`/`index` (change: branch 1). */
  address(branch: 0 | 1, index: number): string {
    return this.payment(branch, index).address;
  }

  private payment(branch: 0 | 1, index: number): ReturnType<typeof p2wpkh> {
    const key = this.account.deriveChild(branch).deriveChild(index);
    return p2wpkh(key.publicKey as Uint8Array, this.network);
  }

  private privateKeyFor(scriptHex: string): Uint8Array {
    const path = this.byScript.get(scriptHex);
    if (path === undefined) throw new Error(`no key of the hot wallet pays to script ${scriptHex}`);
    const key = this.account.deriveChild(path.branch).deriveChild(path.index).privateKey;
    if (key === null) throw new Error('the hot wallet account has no private key');
    return key;
  }

  /** Whether the script is one of ours (known so far). */
  owns(scriptHex: string): boolean {
    return this.byScript.has(scriptHex);
  }

  /** What the coins hold that a batch could spend: ours, not reserved, in satoshis (before fees). */
  spendable(coins: Pick<Coins, 'utxos' | 'reserved' | 'changeIndex'>): bigint {
    this.extend(1, coins.changeIndex);
    return this.candidates(coins).reduce((sum, utxo) => sum + utxo.amount, 0n);
  }

  /** Whether the coins cover `payouts` and their fee: coin selection only, nothing signed. */
  fits(payouts: readonly BatchPayout[], coins: Coins): boolean {
    return this.select(payouts, coins, false) !== undefined;
  }

  /**
   * One transaction paying every payout, with change to `coins.changeIndex`'s address, fee at
   * `coins.feeRate` satoshis per vbyte, from the coins minus the reserved outpoints. The built
   * transaction is checked before it is signed: its outputs are exactly the payouts (script and
   * amount, each once) plus at most one change output to our own change address, and it spends
   * only our coins.
   */
  signBatch(payouts: readonly BatchPayout[], coins: Coins): SignedBatch | Shortfall {
    const selected = this.select(payouts, coins, true);
    if (selected?.tx === undefined) return { kind: 'insufficient' };
    const tx = selected.tx;
    this.checkOutputs(tx, this.outputs(payouts), hex.encode(outputScript(this.chain, this.address(1, coins.changeIndex))));
    const inputs: string[] = [];
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const script = input.witnessUtxo?.script;
      if (input.txid === undefined || input.index === undefined || script === undefined) throw new Error('a selected input lacks its outpoint or script');
      tx.signIdx(this.privateKeyFor(hex.encode(script)), i);
      inputs.push(`${hex.encode(input.txid)}:${input.index}`);
    }
    tx.finalize();
    return { kind: 'signed', raw: tx.hex, txid: tx.id, fee: tx.fee, vsize: tx.vsize, inputs };
  }

  private outputs(payouts: readonly BatchPayout[]): { script: Uint8Array; amount: bigint }[] {
    return payouts.map((payout) => ({ script: outputScript(this.chain, payout.address), amount: payout.amount }));
  }

  /** The coins a transaction may spend: our own, none that a transaction in flight spends. */
  private candidates(coins: Pick<Coins, 'utxos' | 'reserved'>): Coins['utxos'] {
    return coins.utxos.filter((utxo) => !coins.reserved.has(`${utxo.txid}:${utxo.vout}`) && this.owns(utxo.scriptPubKey));
  }

  /** selectUTXO over our unreserved coins; undefined when they do not cover the payouts and fee. */
  private select(payouts: readonly BatchPayout[], coins: Coins, createTx: boolean): ReturnType<typeof selectUTXO> {
    this.extend(1, coins.changeIndex);
    const candidates = this.candidates(coins).map((utxo) => ({ txid: hex.decode(utxo.txid), index: utxo.vout, witnessUtxo: { script: hex.decode(utxo.scriptPubKey), amount: utxo.amount } }));
    try {
      return selectUTXO(candidates, this.outputs(payouts), 'default', {
        feePerByte: coins.feeRate,
        changeAddress: this.address(1, coins.changeIndex),
        network: this.network,
        createTx,
        bip69: true,
      });
    } catch (error) {
      // selectUTXO throws on outputs below dust and similar: not a shortfall, a payout we cannot make.
      throw new Error(`cannot build the ${this.chain} transaction: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private checkOutputs(tx: { outputsLength: number; getOutput(i: number): { script?: Uint8Array; amount?: bigint } }, wanted: readonly { script: Uint8Array; amount: bigint }[], changeScript: string): void {
    const expected = wanted.map((output) => `${hex.encode(output.script)}:${output.amount}`);
    let change = 0;
    for (let i = 0; i < tx.outputsLength; i++) {
      const output = tx.getOutput(i);
      if (output.script === undefined || output.amount === undefined) throw new Error('an output lacks its script or amount');
      const script = hex.encode(output.script);
      const at = expected.indexOf(`${script}:${output.amount}`);
      if (at >= 0) expected.splice(at, 1);
      else if (script === changeScript && change === 0) change++;
      else throw new Error(`the built transaction has an output nobody asked for (${script}, ${output.amount})`);
    }
    if (expected.length > 0) throw new Error(`the built transaction lacks ${expected.length} payout output(s)`);
  }
}
