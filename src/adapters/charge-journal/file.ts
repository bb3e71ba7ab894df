import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChargeJournal, PendingCharge } from './index.js';

const SUFFIX = '.json';

/** A request id as a file name (ids are plain, but a name is never trusted to be). */
const fileName = (requestId: string) => `${encodeURIComponent(requestId)}${SUFFIX}`;

/**
 * The journal as a directory with one small JSON file per charge, written to a temporary name, fsynced, then
 * renamed into place (so a crash leaves either the whole record or none), and removed once the charge landed.
 * Failed charges are rare, so simplicity beats throughput here. Several gateway processes may share the
 * directory: posting is idempotent, so two of them retrying the same charge charge it once.
 */
export class FileChargeJournal implements ChargeJournal {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly dir: string) {}

  async put(charge: PendingCharge): Promise<void> {
    await this.ensureDir();
    const target = join(this.dir, fileName(charge.requestId));
    const temporary = `${target}.${process.pid}.tmp`;
    const body = JSON.stringify(charge, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
    await this.syncDir();
  }

  async list(): Promise<PendingCharge[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith(SUFFIX));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const charges = await Promise.all(
      names.map(async (name) => {
        const path = join(this.dir, name);
        const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
        const parsed = JSON.parse(text) as PendingCharge & { costMicros: string; capMicros?: string };
        const charge = {
          ...parsed,
          costMicros: BigInt(parsed.costMicros),
          ...(parsed.capMicros === undefined ? {} : { capMicros: BigInt(parsed.capMicros) }),
        };
        return { at: info.mtimeMs, charge };
      }),
    );
    return charges.sort((a, b) => a.at - b.at).map((c) => c.charge);
  }

  async remove(requestId: string): Promise<void> {
    await rm(join(this.dir, fileName(requestId)), { force: true });
  }

  private ensureDir(): Promise<unknown> {
    this.ready ??= mkdir(this.dir, { recursive: true }).catch((err: unknown) => {
      this.ready = undefined; // try again on the next put
      throw err;
    });
    return this.ready;
  }

  /** The rename is durable only once the directory entry is. */
  private async syncDir(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
