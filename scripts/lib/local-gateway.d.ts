import { Miniflare, type WorkerOptions } from "miniflare";
/** Bundles src/index.ts (or another entry) into one ES module for workerd; returns its path. */
export declare function bundleWorker(outDir: string, entry?: string): Promise<string>;
export interface LocalGatewayOptions {
  /** Local state folder (the sync's --persist-to); omit for in-memory state. */
  persistTo?: string;
  port?: number;
  wranglerConfig?: string;
  /** Overrides of wrangler.toml [vars]. */
  vars?: Record<string, string>;
  /** A bundled script; bundled from src/index.ts when omitted. */
  scriptPath?: string;
  /** Extra Workers served by the same Miniflare (the benchmark's bare proxy). */
  extraWorkers?: WorkerOptions[];
}
export interface LocalGateway {
  url: URL;
  miniflare: Miniflare;
  dispose(): Promise<void>;
}
/** The Worker's Miniflare options from wrangler.toml, pointing at a bundled script. */
export declare function gatewayWorkerOptions(scriptPath: string, wranglerConfig?: string, vars?: Record<string, string>): WorkerOptions;
export declare function startLocalGateway(options?: LocalGatewayOptions): Promise<LocalGateway>;
