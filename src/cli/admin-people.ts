import { asList, asRecord, printResponse, text, type Command, type CommandContext } from './admin-command.js';
import { cell, table } from './admin-table.js';

/**
 * The people of a partner's cabinet: list them, clear a person's two-factor, end
 * their sessions, remove them, and read what was done (every action here is recorded).
 */
const peoplePath = (partnerId: string) => `/admin/v1/partners/${encodeURIComponent(partnerId)}/people`;
const personPath = (partnerId: string, personId: string) => `${peoplePath(partnerId)}/${encodeURIComponent(personId)}`;

const personLine = (body: unknown) => {
  const person = asRecord(body);
  return `${text(person, 'email')} (${text(person, 'id')}): two-factor ${person.two_factor === true ? 'on' : 'off'}, ${cell(person.sessions)} live sessions`;
};

async function personAction(context: CommandContext, partnerId: string, personId: string, action: 'clear-2fa' | 'end-sessions', done: string): Promise<void> {
  const response = await context.api.send('POST', `${personPath(partnerId, personId)}/${action}`);
  printResponse(context, response, (body) => `${done}\n${personLine(body)}`);
}

export const peopleCommands: readonly Command[] = [
  {
    words: ['people', 'list'],
    args: ['<partner-id>'],
    flags: [],
    async run(context, [partnerId = '']) {
      printResponse(context, await context.api.send('GET', peoplePath(partnerId)), (body) => {
        const people = asList(body);
        if (people.length === 0) return `partner ${partnerId} has nobody in its cabinet: invite someone with partners invite ${partnerId} --email <address>`;
        return table(
          ['PERSON_ID', 'EMAIL', 'TWO_FACTOR', 'SESSIONS', 'CREATED_AT'],
          people.map((person) => [cell(person.id), cell(person.email), person.two_factor === true ? 'on' : 'off', cell(person.sessions), cell(person.created_at)]),
        );
      });
    },
  },
  {
    words: ['people', 'clear-2fa'],
    args: ['<partner-id>', '<person-id>'],
    flags: [],
    run: (context, [partnerId = '', personId = '']) =>
      personAction(context, partnerId, personId, 'clear-2fa', 'two-factor cleared: the next sign-in asks for the password only (recorded)'),
  },
  {
    words: ['people', 'end-sessions'],
    args: ['<partner-id>', '<person-id>'],
    flags: [],
    run: (context, [partnerId = '', personId = '']) => personAction(context, partnerId, personId, 'end-sessions', 'every session of the person is signed out (recorded)'),
  },
  {
    words: ['people', 'remove'],
    args: ['<partner-id>', '<person-id>'],
    flags: [],
    async run(context, [partnerId = '', personId = '']) {
      await context.api.send('DELETE', personPath(partnerId, personId));
      // The API answers 204 with no body; scripts still get one JSON document to parse.
      context.print(
        context.json
          ? JSON.stringify({ partner_id: partnerId, person_id: personId, removed: true })
          : `removed person ${personId} from partner ${partnerId}'s cabinet: signed out everywhere, the account is gone (recorded)`,
      );
    },
  },
  {
    words: ['people', 'actions'],
    args: ['<partner-id>'],
    flags: ['limit'],
    async run(context, [partnerId = ''], flags) {
      const query = flags.limit === undefined ? '' : `?limit=${encodeURIComponent(flags.limit)}`;
      const response = await context.api.send('GET', `/admin/v1/partners/${encodeURIComponent(partnerId)}/account-actions${query}`);
      printResponse(context, response, (body) => {
        const actions = asList(body);
        if (actions.length === 0) return `nothing recorded for partner ${partnerId}'s cabinet people`;
        return table(
          ['AT', 'ACTION', 'ACTOR', 'EMAIL', 'CLEAR_2FA', 'SESSIONS_ENDED', 'IP'],
          actions.map((row) => [cell(row.at), cell(row.action), cell(row.actor), cell(row.email), cell(row.clear_2fa), cell(row.sessions_ended), cell(row.ip)]),
        );
      });
    },
  },
];
