/** The help text, printed by `help` / `--help` and after every usage error. */
export const USAGE = `Usage: npm run admin -- <command> [options]

Partners
  partners create --name <name> [--markup-bps N] [--rate-limit N]
  partners list
  partners show <partner-id>
  partners suspend <partner-id>        keys of a suspended partner get 403
  partners activate <partner-id>
  partners update <partner-id> [--markup-bps N] [--rate-limit N]

API keys
  keys create <partner-id>             prints the full key: the only time it is shown
  keys list <partner-id>
  keys revoke <key-id>                 requests with the key get 401 from then on

Currencies
  currencies list
  currencies update <currency-id | COIN:NETWORK>
      [--active true|false] [--deposit true|false] [--withdraw true|false]
      [--min-amount X] [--max-amount X] [--payout-fee X] [--confirmations N]

Options
  --json           print the API's JSON response as is (one document, for scripts;
                   keys revoke prints {"key_id":...,"revoked":true}, the API answers 204)
  --url <origin>   API origin; default ADMIN_API_URL, then DATA_DIR/api-url (written by
                   npm start), then http://127.0.0.1:$PORT (PORT default 3000)
  --token <token>  admin token; default ADMIN_TOKEN, then DATA_DIR/admin-token
  -h, --help       this text

DATA_DIR defaults to ./data. For scripts, silence npm's banner: npm run -s admin -- ... --json
`;
