/**
 * Charges commit without waiting for the WAL flush (src/adapters/ledger/README.md "Concurrency and durability"):
 * only the ledger functions of that day, on a database an older migration installed them on.
 */
export async function up(): Promise<void> {
  // Nothing: this migration only re-installed the ledger functions, which the installer now does whenever their
  // source changes (src/db/install-functions.ts). Kept, as its name is recorded in the databases that ran it.
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's.
}
