/**
 * @module `kedge explain`: where a request goes and why, from the table the edge serves (local or remote
 * KV, with the active health record) or from the config folder compiled on the spot (`--compile`). The
 * answer is src/routing/explain.ts: the Worker's own matcher and selection code.
 */
import { compileRouteTable } from "../../src/compile/compile-route-table";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Explanation, explainRequest, readSessionPin } from "../../src/routing/explain";
import type { RequestLocation } from "../../src/routing/locality";
import { prepareTable } from "../../src/routing/prepared-table";
import { KV_KEYS } from "../../src/table/kv-keys";
import { parseHealthRecord } from "../../src/table/parse-route-table";
import type { RouteTable } from "../../src/table/route-table";
import { SESSION_KEY_FILE } from "../lib/local-session-key";
import { parseSyncArgs, type SyncOptions } from "./args";
import { loadConfig, withLiveClusters } from "./load-config";
import { readCurrentTable } from "./publish";
import { EXIT, openStore, type Output } from "./run-sync";
import { UserError } from "./user-error";

export const EXPLAIN_USAGE = `Usage: kedge explain --host HOST [--path /p?q=1] [options]

Where a request goes, and why: the rule chosen and the candidates it beat, the backends with their shares,
the endpoints per cluster with readiness, health and locality tier, the session policy, the filters in the
order the Worker applies them.

  --host HOST           the request's Host (required)
  --path PATH           path and query (default /)
  --method M            (default GET)
  --header NAME=VALUE   a request header; repeat for more
  --cookie TEXT         the Cookie header (a session cookie shows where the session is pinned; a
                        sealed token is opened with SESSION_HMAC_KEY from the environment, or with
                        the local state's key)
  --https               an https:// request (default http://)
  --port N              the port the request came to (default 80, or 443 with --https)
  --colo IAD --country US --continent NA   where the request comes from (locality)
  --compile             explain against the config folder compiled now, not the table the edge serves
and the sync's --config, --local/--remote, --persist-to, --wrangler-config, --env, --json.`;

interface ExplainFlags {
  host?: string;
  path: string;
  method: string;
  headers: [string, string][];
  https: boolean;
  port?: number;
  location: RequestLocation;
  compile: boolean;
}

/** Takes explain's own flags out of argv; the rest are the sync's, parsed by its parser. */
function splitFlags(argv: string[]): { flags: ExplainFlags; rest: string[] } {
  const flags: ExplainFlags = { path: "/", method: "GET", headers: [], https: false, location: {}, compile: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UserError(`${arg} needs a value`, "see kedge explain --help");
      return v;
    };
    switch (arg) {
      case "--host":
        flags.host = value().toLowerCase();
        break;
      case "--path":
        flags.path = value();
        break;
      case "--method":
        flags.method = value().toUpperCase();
        break;
      case "--header": {
        const [name, ...v] = value().split("=");
        flags.headers.push([name!, v.join("=")]);
        break;
      }
      case "--cookie":
        flags.headers.push(["cookie", value()]);
        break;
      case "--https":
        flags.https = true;
        break;
      case "--port":
        flags.port = Number(value());
        break;
      case "--colo":
        flags.location.colo = value();
        break;
      case "--country":
        flags.location.country = value();
        break;
      case "--continent":
        flags.location.continent = value();
        break;
      case "--compile":
        flags.compile = true;
        break;
      default:
        rest.push(arg);
    }
  }
  return { flags, rest };
}

function render(e: Explanation): string[] {
  const lines = [
    `${e.request.method} ${e.request.protocol === "HTTPS" ? "https" : "http"}://${e.request.host}:${e.request.port}${e.request.path}`,
  ];
  if (!e.rule) lines.push("  no rule takes it: 404");
  else {
    lines.push(
      `  rule ${e.rule.id} (${e.rule.source.kind} ${e.rule.source.namespace}/${e.rule.source.name}, listener port ${e.rule.listenerPort})`,
    );
    if (e.invalid) lines.push(`  the rule was rejected at sync (${e.invalid}): 500`);
  }
  lines.push("  candidates, in precedence order:");
  for (const c of e.candidates) lines.push(`    ${c.verdict === "chosen" ? "▶" : "·"} ${c.match}: ${c.verdict}`);
  for (const b of e.backends) {
    lines.push(
      `  backend ${b.backend ?? "(invalid)"}: weight ${b.weight}, ${b.share}% of new requests${b.invalid ? ` (${b.invalid}: answers 500)` : ""}`,
    );
    for (const p of b.endpoints)
      lines.push(
        `    ${p.inPool ? "✓" : "✗"} ${p.id}${p.network ? ` (through ${p.network})` : ""}  ${p.ready ? "ready" : "not ready"}${p.terminating ? ", terminating" : ""}, ${p.healthy ? "healthy" : "unhealthy"}${p.tier !== undefined ? `, tier ${p.tier}` : ""}`,
      );
  }
  if (e.session) lines.push(`  session: ${e.session.type} ${e.session.name} (scope ${e.session.scope})`);
  if (e.pinned)
    lines.push(
      `  the session token pins ${e.pinned.endpoint} of ${e.pinned.backend} (since ${new Date(e.pinned.createdAt).toISOString()}${e.pinned.checked ? "" : "; read without checking its MAC, which needs SESSION_HMAC_KEY"}): it holds while that endpoint is in the table, ready and healthy`,
    );
  if (e.pinUnread) lines.push(`  session token: ${e.pinUnread}`);
  if (e.filters.length > 0) lines.push(`  filters, in order: ${e.filters.join(" ▸ ")}`);
  return lines;
}

/**
 * The session secret that opens session tokens: SESSION_HMAC_KEY from the environment (the deployed
 * Worker's secret, never a flag, so it stays out of shell history and process lists), or for local state
 * the key `npm start` keeps beside it.
 */
function sessionSecret(options: SyncOptions): string | undefined {
  const given = process.env.SESSION_HMAC_KEY;
  if (given) return given;
  const local = join(options.persistTo, SESSION_KEY_FILE);
  return options.target === "local" && existsSync(local) ? readFileSync(local, "utf8").trim() : undefined;
}

export async function explainCommand(argv: string[], io: Output): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(EXPLAIN_USAGE);
    return EXIT.OK;
  }
  const { flags, rest } = splitFlags(argv);
  if (!flags.host) throw new UserError("--host is required", "kedge explain --host shop.example.com --path /cart");
  const options = parseSyncArgs(rest);
  // Only a compile needs the clusters' objects (a live cluster's are read through its API); the served table needs the name.
  const loaded = loadConfig(options.configDir);
  let table: RouteTable | null;
  let unhealthy = new Set<string>();
  if (flags.compile) {
    const withLive = await withLiveClusters(loaded);
    table = (await compileRouteTable(withLive.edge, withLive.manifests)).table;
  } else {
    const abandon = new AbortController();
    const kv = await openStore(options, abandon.signal, "read");
    try {
      table = await readCurrentTable(kv, loaded.edge.name);
      const text = await kv.get(KV_KEYS.health(loaded.edge.name));
      unhealthy = new Set(parseHealthRecord(text === null ? null : JSON.parse(text))?.unhealthy ?? []);
    } finally {
      await kv.close();
    }
  }
  if (!table)
    throw new UserError(`table ${loaded.edge.name} was never written to ${options.target} KV`, "run kedge sync first, or pass --compile");
  const url = new URL(flags.path, `${flags.https ? "https" : "http"}://${flags.host}`);
  const explanation = explainRequest(
    prepareTable(table),
    {
      protocol: flags.https ? "HTTPS" : "HTTP",
      host: url.hostname,
      port: flags.port ?? (flags.https ? 443 : 80),
      path: url.pathname,
      method: flags.method,
      headers: new Headers(flags.headers),
      query: url.searchParams,
    },
    flags.location,
    { generation: 0, allUsable: unhealthy.size === 0, usable: (e) => !unhealthy.has(e.id) },
  );
  const secret = sessionSecret(options);
  const explained = secret ? await readSessionPin(explanation, new Headers(flags.headers), secret) : explanation;
  io.out(options.json ? JSON.stringify(explained, null, 2) : render(explained).join("\n"));
  return EXIT.OK;
}
