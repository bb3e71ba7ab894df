/**
 * `ledger_apply` finds the accounts a batch locks by key (src/adapters/ledger/README.md "Concurrency and
 * durability"): before, it joined the batch against the whole transfers table, a scan that grew with every charge.
 */
export async function up(): Promise<void> {
  // Nothing: this migration only re-installed the ledger functions, which the installer now does whenever their
  // source changes (src/db/install-functions.ts). Kept, as its name is recorded in the databases that ran it.
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's.
}
