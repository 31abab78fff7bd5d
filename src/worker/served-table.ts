/**
 * @module The table an isolate serves: a whole table, or a sharded one whose shards are read from KV on
 * the first request for one of their hosts. At most MAX_LOADED_SHARDS shards stay in memory (the least
 * recently used is dropped), so an isolate's memory follows the hosts it serves, not the table's size.
 */
import { type PreparedTable, prepareTable } from "../routing/prepared-table";
import { type PreparedDirectories, prepareDirectories, shardFor } from "../routing/shard-directory";
import { parseRouteTable } from "../table/parse-route-table";
import type { CompiledBackend, EgressPolicy, Protocol, ShardedTable } from "../table/route-table";
import { READ_LIMIT_MS, SharedRead, TIMED_OUT } from "./bounded-read";
import { GatewayError } from "./errors";

/**
 * Shards kept per isolate: at the default shard size (1 MiB of JSON, ~2.5 MiB prepared), about 30 MiB,
 * and as much again for the previous version's during its minute of fallback: about 60 MiB at most,
 * however many hosts an isolate serves (Workers allow 128 MiB).
 */
export const MAX_LOADED_SHARDS = 12;
/** After a new version is adopted, how long the previous one still answers for hosts whose new shard cannot be read. */
const FALLBACK_MS = 60_000;

export interface ServedTable {
  readonly name: string;
  readonly version: string;
  /** The prepared table that serves this host, or null when no route names it (404). */
  forHost(protocol: Protocol, host: string): PreparedTable | null | Promise<PreparedTable | null>;
  /** The prepared tables in memory now: the whole table, or the loaded shards. */
  inMemory(): PreparedTable[];
  /** What the active health checks probe: every backend (a sharded table reads each shard once) and the egress allow-list. */
  healthTargets(): Promise<HealthTargets>;
  readonly healthChecks?: { maxEndpointsPerRun: number };
  /** For the status endpoint: how many shards there are and which are loaded. */
  readonly shards?: { count: number; loaded: number[] };
}

export interface HealthTargets {
  backends: CompiledBackend[];
  /** The table's egress rules: an external endpoint they do not allow is not probed either. */
  egress?: EgressPolicy;
}

/** A table stored as one value: prepared once, serves every host. */
export function wholeTable(prepared: PreparedTable): ServedTable {
  const { table } = prepared;
  return {
    name: table.name,
    version: table.version,
    healthChecks: table.healthChecks,
    forHost: () => prepared,
    inMemory: () => [prepared],
    healthTargets: async () => ({ backends: Object.values(table.backends), egress: table.egress }),
  };
}

/** A sharded table: its directory in memory, shards read when first needed. */
export class ShardedServedTable implements ServedTable {
  readonly name: string;
  readonly version: string;
  readonly healthChecks?: { maxEndpointsPerRun: number };
  private readonly directories: PreparedDirectories;
  /** Loaded shards, least recently used first. */
  private readonly ready = new Map<number, PreparedTable>();
  /** A shard's first read, shared by the requests that need it meanwhile, each bounded (see bounded-read.ts). */
  private readonly loading = new Map<number, SharedRead<PreparedTable>>();
  private fallback: ServedTable | null;
  private readonly fallbackUntil: number;

  constructor(
    private readonly root: ShardedTable,
    /** Reads shard i's JSON from KV (null when absent). */
    private readonly readShard: (shard: number) => Promise<unknown>,
    previous: ServedTable | null,
  ) {
    this.name = root.name;
    this.version = root.version;
    this.healthChecks = root.healthChecks;
    this.directories = prepareDirectories(root);
    // Only one version back: the previous table's own fallback is not kept.
    this.fallback = previous instanceof ShardedServedTable ? previous.withoutFallback() : previous;
    this.fallbackUntil = Date.now() + FALLBACK_MS;
  }

  get shards(): { count: number; loaded: number[] } {
    return { count: this.root.shards.length, loaded: [...this.ready.keys()].sort((a, b) => a - b) };
  }

  private withoutFallback(): this {
    this.fallback = null;
    return this;
  }

  forHost(protocol: Protocol, host: string): PreparedTable | null | Promise<PreparedTable | null> {
    // The previous version is let go once its minute is over, so its shards do not stay in memory.
    if (this.fallback && Date.now() >= this.fallbackUntil) this.fallback = null;
    const shard = shardFor(this.directories, protocol, host);
    if (shard === undefined) return null;
    const prepared = this.ready.get(shard);
    if (prepared) {
      // Most recently used goes last.
      this.ready.delete(shard);
      this.ready.set(shard, prepared);
      return prepared;
    }
    return this.load(shard).catch((error: unknown) => {
      if (this.fallback) {
        console.warn(`kedge: shard ${shard} of ${this.name}@${this.version} unreadable; answering from the previous version`, error);
        return this.fallback.forHost(protocol, host);
      }
      throw new GatewayError("ROUTE_TABLE_UNAVAILABLE", `shard ${shard} of table ${this.name}@${this.version} cannot be read`, {
        cause: error,
      });
    });
  }

  private async load(shard: number): Promise<PreparedTable> {
    let reads = this.loading.get(shard);
    if (!reads) {
      reads = new SharedRead<PreparedTable>(READ_LIMIT_MS);
      this.loading.set(shard, reads);
    }
    const prepared = await reads.get(() => this.readPrepared(shard));
    if (prepared === TIMED_OUT) throw new Error(`shard ${shard} was not read within ${READ_LIMIT_MS} ms`);
    if (!reads.busy) this.loading.delete(shard);
    return prepared;
  }

  private async readPrepared(shard: number): Promise<PreparedTable> {
    const known = this.ready.get(shard);
    if (known) return known;
    const table = await this.readTable(shard);
    const prepared = prepareTable(table);
    this.ready.set(shard, prepared);
    for (const oldest of this.ready.keys()) {
      if (this.ready.size <= MAX_LOADED_SHARDS) break;
      this.ready.delete(oldest);
    }
    console.log(`kedge: loaded shard ${shard} of ${this.name}@${this.version} (${table.rules.length} rules)`);
    return prepared;
  }

  private async readTable(shard: number) {
    const raw = await this.readShard(shard);
    if (raw === null) throw new Error(`shard ${shard} is not in KV`);
    const parsed = parseRouteTable(raw);
    if (!parsed.ok) throw new Error(`shard ${shard}: ${parsed.reason}`);
    if (parsed.value.version !== this.version) throw new Error(`shard ${shard} belongs to version ${parsed.value.version}`);
    return parsed.value;
  }

  inMemory(): PreparedTable[] {
    return [...this.ready.values()];
  }

  async healthTargets(): Promise<HealthTargets> {
    const backends = new Map<string, CompiledBackend>();
    let egress: EgressPolicy | undefined;
    for (let shard = 0; shard < this.root.shards.length; shard++) {
      // Read one at a time and let each go: the Cron run never holds the whole table.
      const table = this.ready.get(shard)?.table ?? (await this.readTable(shard));
      for (const backend of Object.values(table.backends)) backends.set(backend.id, backend);
      // Every shard carries the same edge settings.
      egress ??= table.egress;
    }
    return { backends: [...backends.values()], egress };
  }
}
