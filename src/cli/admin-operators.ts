import { asRecord, printResponse, text, type Command } from './admin-command.js';
import { UsageError } from './admin-errors.js';

/**
 * The operator console's people: `operators create` invites a person with a role and prints
 * the one-use link that sets their password (the first admin is made this way with the
 * bootstrap token; the next ones are invited from the console's People page).
 */
export const operatorCommands: readonly Command[] = [
  {
    words: ['operators', 'create'],
    args: [],
    flags: ['email', 'role', 'name'],
    async run(context, _args, flags) {
      if (flags.email === undefined || flags.role === undefined) throw new UsageError('operators create needs --email <address> --role viewer|support|finance|admin');
      const body = { email: flags.email, role: flags.role, ...(flags.name === undefined ? {} : { name: flags.name }) };
      const response = await context.api.send('POST', '/admin/v1/operators', body);
      printResponse(context, response, (answer) => {
        const invited = asRecord(answer);
        return [
          `console invitation for ${text(invited, 'email')} as ${text(invited, 'role')} (one use, until ${text(invited, 'expires_at')}):`,
          text(invited, 'url'),
          '',
          'send this link to the person: it sets their password; their first sign-in enrols two-factor (required)',
        ].join('\n');
      });
    },
  },
];
