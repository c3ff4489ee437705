/** The help text, printed by `help` / `--help` and after every usage error. */
export const USAGE = `Usage: npm run admin -- <command> [options]

Partners
  partners create --name <name> [--markup-bps N] [--rate-limit N] [--max-open-orders N]
                                       --rate-limit: requests per minute per key;
                                       --max-open-orders: orders awaiting a deposit at once
                                       (default: the server's MAX_OPEN_ORDERS_PER_PARTNER)
  partners list
  partners show <partner-id>
  partners suspend <partner-id>        keys of a suspended partner get 403
  partners activate <partner-id>
  partners update <partner-id> [--markup-bps N] [--rate-limit N] [--max-open-orders N|default]
                                       default: back to the server's MAX_OPEN_ORDERS_PER_PARTNER
  partners invite <partner-id> --email <address>
                                       prints a one-use cabinet link (72 h) that sets the
                                       person's password: send it to them
  partners reset-password <partner-id> --email <address> [--clear-2fa]
                                       prints a one-use link (1 h) that sets a new password and
                                       signs out all the person's sessions: send it to them;
                                       --clear-2fa: using it also clears their two-factor
                                       (recorded); partners password-reset is the same command

Cabinet people (every action here is recorded)
  people list <partner-id>             each person's id, email, two-factor, live sessions
  people clear-2fa <partner-id> <person-id>
                                       the next sign-in asks for the password only
  people end-sessions <partner-id> <person-id>
                                       signs the person out everywhere
  people remove <partner-id> <person-id>
                                       the account goes, its sessions with it
  people actions <partner-id> [--limit N]
                                       what was done to the partner's people, newest first

API keys
  keys create <partner-id> [--sandbox] [--client]
                                       prints the full key: the only time it is shown;
                                       --sandbox: a pk_test_ key, its orders run on the simulator only;
                                       --client: a pk_client_ key to ship inside an app (rates,
                                       currencies, address checks, order creation, its own orders)
  keys list <partner-id>
  keys revoke <key-id>                 requests with the key get 401 from then on

Currencies
  currencies list
  currencies add <COIN:NETWORK> --chain CHAIN --name NAME --decimals N --min-amount X --max-amount X
      [--contract ADDRESS] [--price-symbol SYMBOL] [--payout-fee X] [--confirmations N]
                                       a coin, token or network at run time, on a chain the catalog
                                       has; what is not given comes from the chain's own coin
  currencies update <currency-id | COIN:NETWORK>
      [--active true|false] [--deposit true|false] [--withdraw true|false]
      [--min-amount X] [--max-amount X] [--payout-fee X] [--confirmations N]

Prices
  prices list                          static table next to the live price quotes use
  prices set <COIN> <usd>              static USD price of one whole coin, e.g. prices set BTC 70000

Orders
  orders list [--status S] [--partner <partner-id>] [--sandbox | --live] [--from WHEN]
              [--to WHEN] [--limit N] [--cursor C]
                                       newest first, with each partner's name; N up to 500,
                                       default 50; --sandbox: test orders only, --live: live
                                       only (neither: both); [--from, --to): created at, a date
                                       (from 00:00 UTC) or an ISO 8601 date-time with its offset;
                                       a full page ends with "more: --cursor C": the next page
  orders search <identifier> [the options of orders list]
                                       every order, of any partner, whose id, short id (any case,
                                       with or without the prefix), deposit, recipient or refund
                                       address, deposit, payout or refund txid, or external id is
                                       exactly that
                                       <order-id> below: the UUID or the short id (EX-7K2M9Q,
                                       any case, with or without the prefix)
  orders show <order-id>               with its event trail and payouts
  orders fail <order-id> --reason "<why>"
                                       fail a non-final order by hand; the reason is recorded
  orders cancel <order-id>             one awaiting its deposit: expired (cancelled)
  orders continue <order-id>           one whose refund is held: exchanged at the float rate
  orders refund <order-id>             one whose refund is held: refunded now
  orders resume <order-id>             one stuck in exchanging or sending: its exchange or payout
                                       runs again at the worker's next pass, with a fresh budget
  orders refund-address <order-id> --address A [--tag T]
                                       until its refund is requested

Commission (contract §7.8)
  commissions report [--from DATE] [--to DATE]
                                       owed per partner over [from, to): a date (2026-01-01,
                                       from 00:00 UTC) or an ISO 8601 date-time with its offset;
                                       default the last 30 days. Orders, volume, commission in
                                       USD and per coin
  commissions pay --period YYYY-MM     pay a month that is over (UTC): one signer payout per
                                       partner and asset, to the partner's payout address; run
                                       twice, it pays once. Lists the payouts and who was
                                       skipped (no address, no signer on the chain)

Ledger and treasury (contract §11.4, §11.5)
  ledger trial-balance [--at DATE]     every account's balance per asset (debit positive) as of
                                       a moment (default now), and per asset the total: 0
  ledger entries [--from DATE] [--to DATE] [--csv]
                                       the lines posted over [from, to), default the last 30
                                       days; --csv: as CSV for the accountant (to a file: > f.csv)

Simulator (simulated chains and exchange)
  simulator deposit <order-id> [--amount X] [--txid T]
                                       send a deposit to the order's address (default: the
                                       expected amount); the worker sees it on its next pass
  simulator confirm <order-id> <count> set the deposit's confirmations
  simulator drop <order-id>            remove the deposit from the chain (a reorg)
  simulator fail-next <exchange|payout|refund> [--count N] [--permanent]
                                       the next N (default 1) attempts fail; --permanent: for
                                       good, not retried; --count 0 clears

Deposit addresses
  addresses resync                     after a restore: every chain's next deposit index past the
                                       known ones plus ADDRESS_RESYNC_GAP (also done at start)

Backups (the embedded store in DATA_DIR; PostgreSQL: pg_dump, docs/operations.md)
  backup <file>                        a consistent copy of the store, taken by the running
                                       server while it serves (or from DATA_DIR when none runs)
  restore <file>                       loads a backup as DATA_DIR's store; refused while a
                                       server runs on DATA_DIR; the store there is kept aside.
                                       Neither holds DATA_DIR/secrets-key: keep it apart

Address pools (chains without derived addresses: SOL)
  pools show <CHAIN>                   addresses available and assigned
  pools alert <CHAIN> <N|default>      the low-pool alert threshold: the pool is low (console,
                                       DepositAddressPoolLow) below N free addresses; default: 100
  pools load <CHAIN> <file>            one address a line; blank lines and # comments skipped;
                                       sent in batches of up to 1000, known addresses skipped

Webhooks (any partner's endpoints)
  webhooks list [--partner <partner-id>] [--limit N]
  webhooks deliveries <endpoint-id> [--status pending|delivered|failed] [--limit N]
                                       the delivery log, newest first
  webhooks disable <endpoint-id>       deliveries wait; the partner cannot re-enable it
  webhooks enable <endpoint-id>
  webhooks redeliver <delivery-id>     due now, with the same webhook-id

Payouts and the signer (real payouts, contract §11)
  payouts list [--status S] [--chain C] [--limit N]
                                       newest first; --status awaiting_approval: the ones
                                       waiting for an operator
  payouts approve <payout-id> --by <who>
                                       a payout above SIGNER_APPROVAL_ABOVE_<ASSET>: the signer
                                       pays it at its next batch (its maxima still apply)
  signer status                        the pauses that are on
  signer pause [--chain C] --by <who> [--reason "<why>"]
                                       no new signatures on C (no --chain: every chain);
                                       what is already broadcast is still followed
  signer resume [--chain C] --by <who> lifts that pause (recorded, as the pause is)

Audit (every operator change, contract §12)
  audit list [--actor A] [--action "POST /admin/v1/orders"] [--target orders/<id>]
      [--from T] [--to T] [--limit N] [--cursor C]
                                       newest first; action and target match as prefixes;
                                       the next page's --cursor is printed below the table

Health
  health                               database and Redis pings, worker loops and their last
                                       tick, chain nodes (height, lag, last error), the
                                       signer's unfinished payouts

Operator console
  operators create --email <address> --role viewer|support|finance|admin [--name "<name>"]
                                       prints a one-use link (72 h) that sets the person's
                                       console password; their first sign-in enrols
                                       two-factor (required)

Options
  --json           print the API's JSON response as is (one document, for scripts;
                   keys revoke prints {"key_id":...,"revoked":true}, the API answers 204;
                   pools load over several batches prints one summed document)
  --url <origin>   API origin; default ADMIN_API_URL, then DATA_DIR/api-url (written by
                   npm start), then http://127.0.0.1:$ADMIN_PORT when ADMIN_PORT is set, else
                   http://127.0.0.1:$PORT (PORT default 3000)
  --token <token>  admin token; default ADMIN_TOKEN, then DATA_DIR/admin-token
  -h, --help       this text

DATA_DIR defaults to ./data. For scripts, silence npm's banner: npm run -s admin -- ... --json
`;
