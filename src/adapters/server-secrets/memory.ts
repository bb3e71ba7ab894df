import type { ServerSecrets } from './index.js';

/** In-process twin of the SQL store: one value per name for the life of the process. */
export class MemoryServerSecrets implements ServerSecrets {
  private readonly values = new Map<string, string>();

  async getOrCreate(name: string, make: () => string): Promise<string> {
    if (!this.values.has(name)) this.values.set(name, make());
    return this.values.get(name)!;
  }
}
