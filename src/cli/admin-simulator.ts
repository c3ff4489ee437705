import { amountFlag, integerFlag, wholeNumber } from './admin-args.js';
import { asRecord, printResponse, type Command, type CommandContext } from './admin-command.js';
import type { ApiResponse } from './admin-client.js';
import { UsageError } from './admin-errors.js';
import { cell } from './admin-table.js';

const STEPS = ['exchange', 'payout', 'refund'] as const;

const orderPath = (id: string, action: string) => `/admin/v1/simulator/orders/${encodeURIComponent(id)}/${action}`;

/** The simulated deposit the API answers with, as one line. */
function printDeposit(context: CommandContext, response: ApiResponse, what: string, next: string): void {
  printResponse(context, response, (body) => {
    const deposit = asRecord(body);
    return [
      `${what}: order ${cell(deposit.order_id)}`,
      `  amount ${cell(deposit.amount)}, txid ${cell(deposit.txid)}, confirmations ${cell(deposit.confirmations)}` +
        (deposit.dropped === true ? ', dropped from the chain' : ''),
      next,
    ].join('\n');
  });
}

export const simulatorCommands: readonly Command[] = [
  {
    words: ['simulator', 'deposit'],
    args: ['<order-id>'],
    flags: ['amount', 'txid'],
    async run(context, [id = ''], flags) {
      const body: Record<string, string> = {};
      if (flags.amount !== undefined) body.amount = amountFlag('amount', flags.amount);
      if (flags.txid !== undefined) body.txid = flags.txid;
      const response = await context.api.send('POST', orderPath(id, 'deposit'), body);
      printDeposit(context, response, 'simulated deposit sent', `the worker sees it on its next pass; confirm it with  simulator confirm ${id} <count>`);
    },
  },
  {
    words: ['simulator', 'confirm'],
    args: ['<order-id>', '<count>'],
    flags: [],
    async run(context, [id = '', count = '']) {
      const response = await context.api.send('POST', orderPath(id, 'confirmations'), { count: wholeNumber('<count>', count) });
      printDeposit(context, response, 'confirmations set', 'the worker picks them up on its next pass');
    },
  },
  {
    words: ['simulator', 'drop'],
    args: ['<order-id>'],
    flags: [],
    async run(context, [id = '']) {
      const response = await context.api.send('POST', orderPath(id, 'drop-deposit'));
      printDeposit(context, response, 'deposit dropped (a reorg)', 'the worker sees it gone on its next pass');
    },
  },
  {
    words: ['simulator', 'fail-next'],
    args: ['<exchange|payout|refund>'],
    flags: ['count', 'permanent'],
    async run(context, [step = ''], flags) {
      if (!(STEPS as readonly string[]).includes(step)) {
        throw new UsageError(`simulator fail-next takes one of ${STEPS.join(' ')}, got "${step}"`);
      }
      const body: Record<string, unknown> = { step };
      if (flags.count !== undefined) body.count = integerFlag('count', flags.count);
      if (flags.permanent === true) body.permanent = true;
      printResponse(context, await context.api.send('POST', '/admin/v1/simulator/faults', body), (answer) => {
        const fault = asRecord(answer);
        // The API replaces what was pending for the step, so 0 clears it.
        if (cell(fault.count) === '0') return `no ${cell(fault.step)} attempt is made to fail any more`;
        const kind = fault.permanent === true ? 'permanently (retrying cannot help)' : 'temporarily (the worker retries)';
        return `the next ${cell(fault.count)} ${cell(fault.step)} attempt(s) fail ${kind}`;
      });
    },
  },
];
