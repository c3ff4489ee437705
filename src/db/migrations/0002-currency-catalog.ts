import { sql, type Kysely } from 'kysely';

/**
 * The starting catalog: real decimals and contracts; limits, confirmations and payout fees are
 * sensible operator defaults, changed later through PATCH /admin/v1/currencies/{id}.
 */
// A frozen row shape: migrations must not follow later changes of the live schema types.
interface Seed {
  coin: string; network: string; name: string; decimals: number;
  is_active: boolean; is_deposit_enabled: boolean; is_withdraw_enabled: boolean;
  min_amount: string; max_amount: string; min_confirmations: number; is_memo: boolean;
  explorer_tx_url: string; explorer_address_url: string; payout_fee: string;
  address_format: string; deposit_strategy: string; price_symbol: string; token_contract: string | null;
}

const explorer = (tx: string, address: string) => ({ explorer_tx_url: tx, explorer_address_url: address });
const flags = { is_active: true, is_deposit_enabled: true, is_withdraw_enabled: true };

const ETHERSCAN = explorer('https://etherscan.io/tx/{txid}', 'https://etherscan.io/address/{address}');
const TRONSCAN = explorer(
  'https://tronscan.org/#/transaction/{txid}',
  'https://tronscan.org/#/address/{address}',
);
const BSCSCAN = explorer('https://bscscan.com/tx/{txid}', 'https://bscscan.com/address/{address}');

const CATALOG: Seed[] = [
  {
    coin: 'BTC', network: 'BTC', name: 'Bitcoin', decimals: 8, ...flags,
    min_amount: '0.0002', max_amount: '10', min_confirmations: 2, is_memo: false,
    ...explorer('https://mempool.space/tx/{txid}', 'https://mempool.space/address/{address}'),
    payout_fee: '0.00002', address_format: 'bitcoin', deposit_strategy: 'hd', price_symbol: 'BTC', token_contract: null,
  },
  {
    coin: 'ETH', network: 'ETH', name: 'Ethereum', decimals: 18, ...flags,
    min_amount: '0.005', max_amount: '250', min_confirmations: 12, is_memo: false, ...ETHERSCAN,
    payout_fee: '0.0005', address_format: 'evm', deposit_strategy: 'hd', price_symbol: 'ETH', token_contract: null,
  },
  {
    coin: 'USDT', network: 'ERC20', name: 'Tether USD', decimals: 6, ...flags,
    min_amount: '20', max_amount: '500000', min_confirmations: 12, is_memo: false, ...ETHERSCAN,
    payout_fee: '4', address_format: 'evm', deposit_strategy: 'hd', price_symbol: 'USDT',
    token_contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  },
  {
    coin: 'USDT', network: 'TRC20', name: 'Tether USD', decimals: 6, ...flags,
    min_amount: '10', max_amount: '500000', min_confirmations: 20, is_memo: false, ...TRONSCAN,
    payout_fee: '1.5', address_format: 'tron', deposit_strategy: 'hd', price_symbol: 'USDT',
    token_contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  },
  {
    coin: 'USDT', network: 'BEP20', name: 'Tether USD', decimals: 18, ...flags,
    min_amount: '10', max_amount: '500000', min_confirmations: 15, is_memo: false, ...BSCSCAN,
    payout_fee: '0.3', address_format: 'evm', deposit_strategy: 'hd', price_symbol: 'USDT',
    token_contract: '0x55d398326f99059fF775485246999027B3197955',
  },
  {
    coin: 'USDC', network: 'ERC20', name: 'USD Coin', decimals: 6, ...flags,
    min_amount: '20', max_amount: '500000', min_confirmations: 12, is_memo: false, ...ETHERSCAN,
    payout_fee: '4', address_format: 'evm', deposit_strategy: 'hd', price_symbol: 'USDC',
    token_contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  },
  {
    coin: 'LTC', network: 'LTC', name: 'Litecoin', decimals: 8, ...flags,
    min_amount: '0.05', max_amount: '5000', min_confirmations: 6, is_memo: false,
    ...explorer('https://blockchair.com/litecoin/transaction/{txid}', 'https://blockchair.com/litecoin/address/{address}'),
    payout_fee: '0.0001', address_format: 'litecoin', deposit_strategy: 'hd', price_symbol: 'LTC', token_contract: null,
  },
  {
    coin: 'DOGE', network: 'DOGE', name: 'Dogecoin', decimals: 8, ...flags,
    min_amount: '50', max_amount: '3000000', min_confirmations: 20, is_memo: false,
    ...explorer('https://blockchair.com/dogecoin/transaction/{txid}', 'https://blockchair.com/dogecoin/address/{address}'),
    payout_fee: '1', address_format: 'dogecoin', deposit_strategy: 'hd', price_symbol: 'DOGE', token_contract: null,
  },
  {
    coin: 'TRX', network: 'TRX', name: 'TRON', decimals: 6, ...flags,
    min_amount: '50', max_amount: '5000000', min_confirmations: 20, is_memo: false, ...TRONSCAN,
    payout_fee: '1', address_format: 'tron', deposit_strategy: 'hd', price_symbol: 'TRX', token_contract: null,
  },
  {
    coin: 'BNB', network: 'BEP20', name: 'BNB', decimals: 18, ...flags,
    min_amount: '0.02', max_amount: '2000', min_confirmations: 15, is_memo: false, ...BSCSCAN,
    payout_fee: '0.0005', address_format: 'evm', deposit_strategy: 'hd', price_symbol: 'BNB', token_contract: null,
  },
  {
    coin: 'SOL', network: 'SOL', name: 'Solana', decimals: 9, ...flags,
    min_amount: '0.1', max_amount: '20000', min_confirmations: 32, is_memo: false,
    ...explorer('https://solscan.io/tx/{txid}', 'https://solscan.io/account/{address}'),
    payout_fee: '0.001', address_format: 'solana', deposit_strategy: 'pool', price_symbol: 'SOL', token_contract: null,
  },
  {
    coin: 'XRP', network: 'XRP', name: 'XRP', decimals: 6, ...flags,
    min_amount: '20', max_amount: '2000000', min_confirmations: 1, is_memo: true,
    ...explorer('https://xrpscan.com/tx/{txid}', 'https://xrpscan.com/account/{address}'),
    payout_fee: '0.2', address_format: 'xrp', deposit_strategy: 'memo', price_symbol: 'XRP', token_contract: null,
  },
  {
    coin: 'XLM', network: 'XLM', name: 'Stellar', decimals: 7, ...flags,
    min_amount: '50', max_amount: '5000000', min_confirmations: 1, is_memo: true,
    ...explorer('https://stellar.expert/explorer/public/tx/{txid}', 'https://stellar.expert/explorer/public/account/{address}'),
    payout_fee: '0.01', address_format: 'stellar', deposit_strategy: 'memo', price_symbol: 'XLM', token_contract: null,
  },
  {
    coin: 'TON', network: 'TON', name: 'Toncoin', decimals: 9, ...flags,
    min_amount: '3', max_amount: '300000', min_confirmations: 1, is_memo: true,
    ...explorer('https://tonviewer.com/transaction/{txid}', 'https://tonviewer.com/{address}'),
    payout_fee: '0.05', address_format: 'ton', deposit_strategy: 'memo', price_symbol: 'TON', token_contract: null,
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const rows = CATALOG.map((currency, index) => ({
    ...currency,
    icon_url: `/static/icons/${currency.coin.toLowerCase()}.svg`,
    sort_order: (index + 1) * 10,
  }));
  await (db as Kysely<{ currencies: Seed & { icon_url: string; sort_order: number } }>)
    .insertInto('currencies')
    .values(rows)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from currencies`.execute(db);
}
