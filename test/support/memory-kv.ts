/** @module A KvStore in memory, for the publish path's unit tests: what was written, and a hook before each write. */
import type { KvStore } from "../../scripts/store/kv-store";

export class MemoryKv implements KvStore {
  readonly values = new Map<string, string>();
  readonly description = "memory";
  /** Runs before every put, with its key: a test's chance to act as a concurrent writer. */
  beforePut?: (key: string) => Promise<void> | void;

  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null;
  }
  async put(key: string, value: string): Promise<void> {
    await this.beforePut?.(key);
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
  async putMany(entries: Iterable<[string, string]>): Promise<void> {
    for (const [key, value] of entries) await this.put(key, value);
  }
  async deleteMany(keys: string[]): Promise<void> {
    for (const key of keys) this.values.delete(key);
  }
  getMany(keys: string[]): Promise<(string | null)[]> {
    return Promise.all(keys.map((key) => this.get(key)));
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix)).sort();
  }
  async close(): Promise<void> {}
}
