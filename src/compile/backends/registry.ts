/**
 * @module The backends routes resolve to, each built once however many rules name it, by id: what the
 * emit stage writes into the table (those a served rule uses) and the report stage reads.
 */
import type { CompiledBackend } from "../../table/route-table";

export class BackendRegistry {
  private readonly byId = new Map<string, CompiledBackend>();

  /**
   * Builds the backend `id` unless it is known; `target` is what session pins name it by (stored when it
   * differs from the id). Endpoints listed twice (the same address in two slices) are kept once.
   */
  register(id: string, target: string, build: () => Omit<CompiledBackend, "target">): void {
    if (this.byId.has(id)) return;
    const built = build();
    const endpoints = [...new Map(built.endpoints.map((e) => [e.id, e])).values()];
    this.byId.set(id, { ...built, ...(target !== id ? { target } : {}), endpoints });
  }

  get(id: string): CompiledBackend | undefined {
    return this.byId.get(id);
  }

  /** Every backend built, by id. */
  entries(): [string, CompiledBackend][] {
    return [...this.byId.entries()];
  }
}
