/**
 * The operator's payment commands (issue 27 item 5): `payments reconcile` compares every deposit with the ledger and
 * with its rail, as configured for the server, and prints the differences (docs/payments.md).
 */
import { reconcileDeposits } from '../domain/payments/reconcile.js';
import type { Command } from './command.js';

export const paymentCommands: Record<string, Command> = {
  'payments reconcile': {
    usage: 'payments reconcile',
    options: {},
    prepare() {
      return async ({ payments }) => ({ ...(await reconcileDeposits(payments)) });
    },
  },
};
