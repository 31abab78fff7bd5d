/**
 * @module `kedge explain`: where a request goes and why, from the table the edge serves (local or remote
 * KV, with the active health record) or from the config folder compiled on the spot (`--compile`). The
 * answer is src/routing/explain.ts: the Worker's own matcher and selection code. While a canary runs it also says
 * which version the request gets: by the canary's share, or, when it carries a session token that opens, the
 * version that session started on (as the Worker decides: a session stays on its version until the canary ends).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileLoaded } from "../../config/compile-loaded";
import { type Explanation, explainRequest, readSessionPin } from "../../../src/routing/explain";
import type { RequestLocation } from "../../../src/routing/locality";
import { prepareTable } from "../../../src/routing/prepared-table";
import { KV_KEYS } from "../../../src/table/kv-keys";
import { parseHealthRecord } from "../../../src/table/parse-route-table";
import type { RouteTable } from "../../../src/table/route-table";
import { SESSION_KEY_FILE } from "../../dev/local-session-key";
import { servedHostnames } from "../../checks/deployment-checks";
import { loadConfig, withLiveClusters } from "../../config/load-config";
import { type StoreTarget, withStore } from "../../store/open-store";
import type { KvStore } from "../../store/kv-store";
import { readHistory, readPointer, readPointerWithCanary } from "../../store/publish";
import { readTable } from "../../store/read-table";
import type { CanaryPointer } from "../../../src/table/canary";
import { MIN_PREFIX, resolveVersion } from "../../store/version-prefix";
import { UserError } from "../../lib/user-error";
import { command, EXIT, type Flag } from "../command";
import { OUTPUT_FLAGS, type OutputOptions, parsePort, storeTarget, TARGET_FLAGS, type TargetOptions } from "../flags";

interface ExplainOptions extends TargetOptions, OutputOptions {
  host: string;
  path: string;
  method: string;
  header: [string, string][];
  cookie?: string;
  https?: boolean;
  port?: number;
  colo?: string;
  country?: string;
  continent?: string;
  compile?: boolean;
  tableVersion?: string;
}

/** An HTTP token (RFC 9110, section 5.6.2): what a header name and a method are made of. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `--method`: an HTTP token, upper-cased as the Worker compares methods. */
function parseMethod(text: string): string {
  if (!HTTP_TOKEN.test(text))
    throw new UserError(`--method ${JSON.stringify(text)} is not an HTTP method`, "for example --method POST (one word, no spaces)");
  return text.toUpperCase();
}

/** `--header 'Name: value'` as curl takes it (or `Name=value`), collected in order. */
function parseHeader(text: string, previous: unknown): [string, string][] {
  const colon = text.indexOf(":");
  const equals = text.indexOf("=");
  const at = colon > 0 && (equals === -1 || colon < equals) ? colon : equals;
  const name = at > 0 ? text.slice(0, at).trim() : "";
  if (!HTTP_TOKEN.test(name))
    throw new UserError(`--header ${JSON.stringify(text)} is not a header`, "write it as curl does: --header 'x-version: v2'");
  return [...((previous as [string, string][] | undefined) ?? []), [name.toLowerCase(), text.slice(at + 1).trim()]];
}

const EXPLAIN_FLAGS: Flag[] = [
  { flags: "--host <host>", description: "the request's Host (required)", parse: (text) => text.toLowerCase() },
  { flags: "--path <path>", description: "path and query", default: "/" },
  { flags: "--method <method>", description: "the request method", default: "GET", parse: parseMethod },
  {
    flags: "-H, --header <header>",
    description: "a request header, as curl takes it ('Name: value'); repeat for more",
    parse: parseHeader,
  },
  {
    flags: "--cookie <text>",
    description:
      "the Cookie header (a session cookie shows where the session is pinned; a sealed token is opened with SESSION_HMAC_KEY from the environment, or the local state's key)",
  },
  { flags: "--https", description: "an https:// request (default http://)" },
  {
    flags: "--port <port>",
    description: "the port the request came to (default 80, or 443 with --https)",
    parse: (text) => parsePort(text),
  },
  { flags: "--colo <code>", description: "the Cloudflare colo the request comes through (locality), e.g. IAD" },
  { flags: "--country <code>", description: "the client's country (locality), e.g. US" },
  { flags: "--continent <code>", description: "the client's continent (locality), e.g. NA" },
  { flags: "--compile", description: "explain against the config folder compiled now, not the table the edge serves" },
  {
    flags: "--table-version <version>",
    description: `explain against a kept version (whole, or a prefix of at least ${MIN_PREFIX} characters), not the served one: where the request would go after \`kedge rollback VERSION\``,
    conflicts: ["compile"],
  },
];

function render(e: Explanation, hostsServed: string[] | undefined): string[] {
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
  if (e.hostServedOn) {
    const where = e.hostServedOn.map((p) => `${p.protocol} ${p.ports.length === 1 ? "port" : "ports"} ${p.ports.join(", ")}`);
    lines.push(`  ${e.request.host} is served only on ${where.join(" and ")}; no ${e.request.protocol} listener takes it`);
  } else if (hostsServed) lines.push(`  no listener takes host ${e.request.host}; the hosts served: ${hostsServed.join(", ") || "(none)"}`);
  if (e.candidates.length > 0) lines.push("  candidates, in precedence order:");
  for (const c of e.candidates) lines.push(`    ${c.verdict === "chosen" ? "▶" : "·"} ${c.match}: ${c.verdict}`);
  for (const b of e.backends) {
    lines.push(
      `  backend ${b.backend ?? "(invalid)"}: weight ${b.weight}, ${b.share}% of new requests${b.invalid ? ` (${b.invalid}: answers 500)` : ""}`,
    );
    for (const p of b.endpoints)
      lines.push(
        `    ${p.inPool ? "✓" : "✗"} ${p.id}${p.network ? ` (through ${p.network})` : ""}  ${p.ready ? "ready" : "not ready"}${p.terminating ? ", terminating" : ""}, ${p.healthy ? "healthy" : "unhealthy"}${p.draining ? ", cluster draining" : ""}${p.priority !== undefined ? `, priority ${p.priority}` : ""}${p.tier !== undefined ? `, tier ${p.tier}` : ""}`,
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

/** Which version a request gets while a canary runs, and why. */
export interface VersionChoice {
  current: string;
  canary: { id: string; version: string; percent: number };
  /** `share`: a new request or session, drawn by the canary's share; `session`: its session's version. */
  by: "share" | "session";
  /** With `session`: the version the request gets. */
  gets?: string;
}

/** The served table (and the canary's, while one runs), or with `--table-version` a kept one (named whole or by a unique prefix). */
async function tableToExplain(
  kv: KvStore,
  name: string,
  version: string | undefined,
): Promise<{ table: RouteTable | null; canary?: { spec: CanaryPointer; table: RouteTable } }> {
  if (version === undefined) {
    const read = await readPointerWithCanary(kv, name);
    if (!read) return { table: null };
    const table = await readTable(kv, name, read.pointer.version);
    const spec = read.running?.canary;
    const canaryTable = spec ? await readTable(kv, name, spec.version) : null;
    return { table, ...(spec && canaryTable ? { canary: { spec, table: canaryTable } } : {}) };
  }
  const pointer = await readPointer(kv, name);
  const kept = (await readHistory(kv, name, { pointer })).entries.map((e) => e.version);
  const resolved = resolveVersion(version, kept, name);
  const table = await readTable(kv, name, resolved);
  if (!table)
    throw new UserError(`version ${resolved} of table ${name} is not stored (or is unreadable)`, `kept versions: ${kept.join(", ")}`);
  return { table };
}

/** The lines that say which version the request gets while a canary runs. */
function versionLines(v: VersionChoice): string[] {
  const rest = 100 - v.canary.percent;
  if (v.by === "session")
    return [
      `version: its session started on ${v.gets === v.canary.version ? `the canary ${v.canary.version}` : `${v.gets} (not the canary)`}: it stays on ${v.gets} until the canary ends`,
    ];
  return [
    `version: by share: ${v.canary.percent}% of new requests and sessions get the canary ${v.canary.version}, ${rest}% the current ${v.current}; below, the current version's answer, then the canary's`,
  ];
}

/**
 * The session secret that opens session tokens: SESSION_HMAC_KEY from the environment (the deployed
 * Worker's secret, never a flag, so it stays out of shell history and process lists), or for local state
 * the key `kedge dev` and `npm start` keep beside it.
 */
function sessionSecret(where: StoreTarget): string | undefined {
  const given = process.env.SESSION_HMAC_KEY;
  if (given) return given;
  const local = join(where.persistTo, SESSION_KEY_FILE);
  return where.target === "local" && existsSync(local) ? readFileSync(local, "utf8").trim() : undefined;
}

export const explainCommand = command<ExplainOptions>({
  name: "explain",
  summary: "where a request goes and why: rule, candidates it beat, backends, endpoints, filters",
  description:
    "Where a request goes, and why: while a canary runs, which version it gets (by the canary's share, or by the version its session started on, with --cookie or the session header), the rule chosen and the candidates it beat, the backends with their shares, the endpoints per cluster with readiness, health and locality tier, the session policy, and the filters in the order the Worker applies them. Reads the table the edge serves (with its active health record), or with --compile the config folder compiled now.",
  flags: [...EXPLAIN_FLAGS, ...TARGET_FLAGS, ...OUTPUT_FLAGS],
  exitCodes: { 0: "explained (also when no rule takes the request: it says so)", 2: "a flag, the config or the store cannot be used" },
  examples: [
    "kedge explain --host bookinfo.example.com --path /reviews/1 --header 'x-reviews-version: v3'",
    "kedge explain --host shop.example.com --path /cart --cookie 'cart=…' --remote --env production",
  ],
  async run(options, _args, io) {
    if (!options.host) throw new UserError("--host is required", "kedge explain --host shop.example.com --path /cart");
    const where = storeTarget(options);
    // Only a compile needs the clusters' objects (a live cluster's are read through its API); the served table needs the name.
    const loaded = loadConfig(options.config, { once: true });
    let table: RouteTable | null;
    let canary: { spec: CanaryPointer; table: RouteTable } | undefined;
    let unhealthy = new Set<string>();
    if (options.compile) {
      const withLive = await withLiveClusters(loaded);
      table = (await compileLoaded(withLive)).table;
    } else {
      let found: Awaited<ReturnType<typeof tableToExplain>>;
      [found, unhealthy] = await withStore(where, "read", { progress: io.progress }, (store) =>
        store.use(async (kv) => {
          const text = await kv.get(KV_KEYS.health(loaded.edge.name));
          const record = parseHealthRecord(text === null ? null : JSON.parse(text));
          return [await tableToExplain(kv, loaded.edge.name, options.tableVersion), new Set(record?.unhealthy ?? [])] as const;
        }),
      );
      table = found.table;
      canary = found.canary;
    }
    if (!table)
      throw new UserError(`table ${loaded.edge.name} was never written to ${where.target} KV`, "run kedge sync first, or pass --compile");
    const headers: [string, string][] = [
      ...(options.header ?? []),
      ...(options.cookie !== undefined ? [["cookie", options.cookie] as [string, string]] : []),
    ];
    let url: URL;
    try {
      url = new URL(options.path, `${options.https ? "https" : "http"}://${options.host}`);
    } catch {
      throw new UserError(
        `--host ${JSON.stringify(options.host)} with --path ${JSON.stringify(options.path)} is not a URL`,
        "for example --host shop.example.com --path '/cart?id=1'",
      );
    }
    const location: RequestLocation = {
      ...(options.colo ? { colo: options.colo } : {}),
      ...(options.country ? { country: options.country } : {}),
      ...(options.continent ? { continent: options.continent } : {}),
    };
    const secret = sessionSecret(where);
    const explainOn = async (t: RouteTable) => {
      const explanation = explainRequest(
        prepareTable(t),
        {
          protocol: options.https ? "HTTPS" : "HTTP",
          host: url.hostname,
          port: options.port ?? (options.https ? 443 : 80),
          path: url.pathname,
          method: options.method,
          headers: new Headers(headers),
          query: url.searchParams,
        },
        location,
        { generation: 0, allUsable: unhealthy.size === 0, usable: (e) => !unhealthy.has(e.id) },
      );
      return secret ? readSessionPin(explanation, new Headers(headers), secret) : explanation;
    };
    const current = await explainOn(table);
    const underCanary = canary ? await explainOn(canary.table) : undefined;
    // As the Worker decides: a session token that opens names the version its session started on.
    // A session from before versions were sealed in pins ("") stays on the current version, as in the Worker.
    const opened = current.pinned?.checked ? current.pinned : underCanary?.pinned?.checked ? underCanary.pinned : undefined;
    const sessionOn = opened ? (opened.version ?? "") : undefined;
    const choice: VersionChoice | undefined = canary && {
      current: table.version,
      canary: { id: canary.spec.id, version: canary.spec.version, percent: canary.spec.percent },
      by: sessionOn !== undefined ? "session" : "share",
      ...(sessionOn !== undefined ? { gets: sessionOn === canary.spec.version ? canary.spec.version : table.version } : {}),
    };
    const explained = choice?.gets === canary?.spec.version && underCanary ? underCanary : current;
    const servedTable = explained === underCanary && canary ? canary.table : table;
    // No candidate at all and no other protocol serves the host: no listener takes it, so name the hosts that are served.
    const hostsServed =
      !explained.rule && explained.candidates.length === 0 && !explained.hostServedOn ? servedHostnames(servedTable) : undefined;
    const alsoCanary = choice?.by === "share" && underCanary ? underCanary : undefined;
    return {
      code: EXIT.OK,
      data: {
        ...explained,
        ...(hostsServed ? { hostsServed } : {}),
        ...(choice ? { version: choice } : {}),
        ...(alsoCanary ? { canary: alsoCanary } : {}),
      },
      text: [
        ...(choice ? versionLines(choice) : []),
        ...render(explained, hostsServed),
        ...(alsoCanary
          ? [
              `under the canary ${canary!.spec.version} (${canary!.spec.percent}% of new requests and sessions):`,
              ...render(alsoCanary, undefined),
            ]
          : []),
      ],
    };
  },
});
