export type SyncTarget = "local" | "remote";
export interface SyncOptions {
  configDir: string;
  target: SyncTarget;
  persistTo: string;
  dryRun: boolean;
  json: boolean;
  strict: boolean;
  /** `--rollback` alone: the previous version; `--rollback V`: that version. */
  rollback?: {
    version?: string;
  };
  statusOut?: string;
  wranglerConfig: string;
  help: boolean;
}
export declare const USAGE =
  "Usage: npm run sync -- [options]\n\nCompiles the Gateway API resources of every cluster into one route table and pushes it to Workers KV.\n\nOptions:\n  --config DIR          config folder with kedge.yaml and clusters/<name>/ (default: config)\n  --local               write to local state that `npm start` and `wrangler dev` read (default)\n  --persist-to DIR      local state folder, like wrangler's flag (default: .wrangler/state)\n  --remote              write to the KV namespace in wrangler.toml, through wrangler and your login\n  --dry-run             show what would change against the current table; write nothing\n  --rollback [VERSION]  point the edge back at VERSION (default: the previous version)\n  --strict              exit 1 and write nothing when any resource was rejected\n  --json                machine-readable output\n  --status-out DIR      write each object's status block as YAML under DIR\n  --wrangler-config F   wrangler config file (default: wrangler.toml)\n  -h, --help            this text\n\nExit codes: 0 written or unchanged (warnings allowed); 1 --strict and something was rejected;\n2 input that cannot be used (YAML syntax error, unknown flag), nothing written.";
/** Parses argv (without node and script). */
export declare function parseSyncArgs(argv: string[]): SyncOptions;
