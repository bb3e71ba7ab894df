/**
 * Provider payouts inside a debit or a capture (src/adapters/ledger/README.md "Payouts"; GPU rentals, SPEC 1.6): no table
 * changes, only the ledger functions of that day on a database whose 0005 installed older ones.
 */
export async function up(): Promise<void> {
  // Nothing: this migration only re-installed the ledger functions, which the installer now does whenever their
  // source changes (src/db/install-functions.ts). Kept, as its name is recorded in the databases that ran it.
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's, and a batch without payees runs in them as before.
}
