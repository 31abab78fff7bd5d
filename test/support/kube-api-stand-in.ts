/**
 * @module A stand-in Kubernetes API server on 127.0.0.1 for the live-cluster tests, speaking the API's
 * conventions: discovery (`/api`, `/api/v1`, `/apis`, `/apis/<group>/<version>`); lists across namespaces
 * (typed lists whose items carry no kind, with a list resourceVersion); one object, and its `status`
 * subresource, by path; watches (`?watch=1&resourceVersion=N`, one JSON event per line: ADDED, MODIFIED,
 * DELETED, BOOKMARK, and ERROR 410 Gone for a resourceVersion compacted away, ended after
 * `timeoutSeconds`); status writes as JSON merge patches (`application/merge-patch+json`) with a
 * resourceVersion precondition (409 Conflict when the object moved on); Status bodies for errors. Every
 * write bumps one resourceVersion counter; a change of spec bumps metadata.generation. It answers 401 to a
 * wrong bearer token (kubectl sends none to a plain-HTTP server) and 403 for what it is told to refuse.
 * The test changes objects as a user would (apply, remove, another controller's status), and can stop
 * answering (connections refused) and start again on the same port.
 *
 * Checked by hand with the real kubectl (Debian's package), against a kubeconfig from kubeconfigFor:
 * `kubectl get gateways.gateway.networking.k8s.io,httproutes,services -A -o yaml` lists these objects,
 * `kubectl get httproutes -A --watch` prints changes as they are applied, and
 * `kubectl patch httproute web -n shop --subresource=status --type=merge -p '{"status":{...}}'` writes a status.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** One resource the stand-in serves: its group, version, plural name, kind, and objects (as written in YAML, without apiVersion/kind). */
export interface StandInResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  items: Record<string, unknown>[];
  /** Cluster-scoped; default: GatewayClass and Namespace are, other kinds are namespaced. */
  clusterScoped?: boolean;
}

const clusterScoped = (r: StandInResource): boolean => r.clusterScoped ?? ["GatewayClass", "Namespace"].includes(r.kind);

export interface StandInOptions {
  token: string;
  /** Plurals whose listing (and watch) is refused with 403. */
  forbidden?: string[];
  /** Plurals whose status writes are refused with 403. */
  forbiddenStatus?: string[];
}

type Json = Record<string, unknown>;
type Obj = Json & { metadata: Json & { name: string; namespace?: string; resourceVersion: string; generation: number; uid: string } };

interface Event {
  rv: number;
  plural: string;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: Obj;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7386 JSON merge patch: objects merge key by key, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const statusBody = (code: number, reason: string, message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  code,
});

export class KubeStandIn {
  readonly requests: string[] = [];
  /** Status patches received: path and body, in order. */
  readonly statusWrites: { path: string; body: Json }[] = [];
  /**
   * Set by a test: called before a status patch is applied, as another writer that gets in first would
   * (its change then moves the resourceVersion, and the patch's precondition fails with 409).
   */
  beforeStatusPatch?: (plural: string, namespace: string, name: string) => void;
  /** Set by a test: the next this many requests (discovery, lists, watches) are answered with this status, as an overloaded server would. */
  failing?: { status: number; count: number };
  private rv = 100;
  /** Watch events before this resourceVersion are compacted away: a watch from before gets 410 Gone. */
  private compactedBefore = 0;
  private readonly events: Event[] = [];
  private readonly objects = new Map<string, Map<string, Obj>>();
  private readonly watchers = new Set<{ plural: string; res: ServerResponse; from: number }>();
  private readonly sockets = new Set<Socket>();
  private server: Server;
  private port = 0;

  private constructor(
    private readonly resources: StandInResource[],
    private readonly options: StandInOptions,
  ) {
    for (const r of resources) {
      const byName = new Map<string, Obj>();
      this.objects.set(r.plural, byName);
      for (const item of r.items) {
        const obj = this.stamp(r, item, 1);
        byName.set(this.key(obj), obj);
      }
    }
    this.server = this.makeServer();
  }

  static async start(resources: StandInResource[], options: StandInOptions): Promise<KubeStandIn> {
    const standIn = new KubeStandIn(resources, options);
    await standIn.listen(0);
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private key(o: { metadata: { namespace?: unknown; name: unknown } }): string {
    return `${String(o.metadata.namespace ?? "")}/${String(o.metadata.name)}`;
  }

  /** Where `item` is (or would be) kept: its namespace (default `default`) and name. */
  private keyOf(r: StandInResource, item: Json): string {
    const metadata = (item.metadata ?? {}) as Json;
    return `${clusterScoped(r) ? "" : String(metadata.namespace ?? "default")}/${String(metadata.name)}`;
  }

  private resource(plural: string): StandInResource {
    const r = this.resources.find((x) => x.plural === plural);
    if (!r) throw new Error(`the stand-in serves no ${plural}`);
    return r;
  }

  private stamp(r: StandInResource, item: Json, generation: number): Obj {
    const metadata = (item.metadata ?? {}) as Json;
    const rv = ++this.rv;
    return {
      ...item,
      metadata: {
        uid: `uid-${r.plural}-${String(metadata.namespace ?? "")}-${String(metadata.name)}`,
        creationTimestamp: "2026-11-01T00:00:00Z",
        ...metadata,
        ...(clusterScoped(r) ? {} : { namespace: metadata.namespace ?? "default" }),
        resourceVersion: String(rv),
        generation,
      },
    } as unknown as Obj;
  }

  private record(plural: string, type: Event["type"], object: Obj): void {
    const event: Event = { rv: Number(object.metadata.resourceVersion), plural, type, object };
    this.events.push(event);
    for (const w of this.watchers) if (w.plural === plural) this.send(w.res, event);
  }

  private send(res: ServerResponse, event: Event): void {
    const r = this.resource(event.plural);
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    res.write(`${JSON.stringify({ type: event.type, object: { apiVersion, kind: r.kind, ...event.object } })}\n`);
  }

  /** Creates or replaces an object's spec (and other top-level fields but status), as `kubectl apply` would. */
  apply(plural: string, item: Json): Obj {
    const r = this.resource(plural);
    const byName = this.objects.get(plural)!;
    const before = byName.get(this.keyOf(r, item));
    const { status: _ignored, ...fields } = item;
    const specChanged =
      !before ||
      JSON.stringify({ ...before, metadata: undefined, status: undefined }) !== JSON.stringify({ ...fields, metadata: undefined });
    const obj = this.stamp(
      r,
      { ...fields, ...(before?.status ? { status: before.status } : {}) },
      before ? before.metadata.generation + (specChanged ? 1 : 0) : 1,
    );
    if (before) obj.metadata.uid = before.metadata.uid;
    byName.set(this.key(obj), obj);
    this.record(plural, before ? "MODIFIED" : "ADDED", obj);
    return obj;
  }

  remove(plural: string, namespace: string, name: string): void {
    const byName = this.objects.get(plural)!;
    const before = byName.get(`${namespace}/${name}`);
    if (!before) return;
    byName.delete(`${namespace}/${name}`);
    this.record(plural, "DELETED", { ...before, metadata: { ...before.metadata, resourceVersion: String(++this.rv) } });
  }

  /** Writes a status as another controller would (no precondition). */
  setStatus(plural: string, namespace: string, name: string, status: Json): void {
    const byName = this.objects.get(plural)!;
    const before = byName.get(`${namespace}/${name}`)!;
    const obj = { ...before, status, metadata: { ...before.metadata, resourceVersion: String(++this.rv) } };
    byName.set(`${namespace}/${name}`, obj);
    this.record(plural, "MODIFIED", obj);
  }

  object(plural: string, namespace: string, name: string): Obj | undefined {
    return this.objects.get(plural)!.get(`${namespace}/${name}`);
  }

  /** Every open watch gets half an event and then its connection reset, as a proxy that drops it mid-write. */
  cutWatches(): void {
    for (const w of this.watchers) {
      w.res.write('{"type":"MODIFIED","object":{"metadata":{"name":"half');
      w.res.destroy();
    }
  }

  /** Every open watch gets an ERROR event (not 410), as a server that cannot go on with it. */
  errorWatches(): void {
    for (const w of this.watchers)
      w.res.write(`${JSON.stringify({ type: "ERROR", object: statusBody(500, "InternalError", "the stand-in ends this watch") })}\n`);
  }

  /** Watches from before now get 410 Gone (etcd compaction). */
  compact(): void {
    this.compactedBefore = this.rv;
  }

  /** Stops answering: open watches are cut and new connections refused, until restart(). */
  async stop(): Promise<void> {
    if (!this.server.listening) return;
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers again, on the same port. */
  async restart(): Promise<void> {
    this.server = this.makeServer();
    await this.listen(this.port);
  }

  close(): Promise<void> {
    return this.stop();
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private makeServer(): Server {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => this.answer(req, res, body));
    });
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    return server;
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const path = url.pathname;
    this.requests.push(`${req.method === "GET" ? "" : `${req.method} `}${path}${url.searchParams.has("watch") ? "?watch" : ""}`);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    if (this.failing && this.failing.count > 0) {
      this.failing.count--;
      return send(this.failing.status, statusBody(this.failing.status, "TooManyRequests", "the stand-in is told to fail this request"));
    }
    // kubectl sends no token to a plain-HTTP server; a wrong one is refused.
    if (req.headers.authorization !== undefined && req.headers.authorization !== `Bearer ${this.options.token}`)
      return send(401, statusBody(401, "Unauthorized", "Unauthorized"));
    if (path === "/api") return send(200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    const groups = [...new Set(this.resources.filter((r) => r.group !== "").map((r) => `${r.group}/${r.version}`))];
    if (path === "/apis")
      return send(200, {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: groups.map((gv) => {
          const [name, version] = gv.split("/") as [string, string];
          return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
        }),
      });
    const baseOf = (r: StandInResource) => (r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`);
    const base = this.resources.find((r) => path === baseOf(r));
    if (base) {
      const sameVersion = this.resources.filter((r) => r.group === base.group && r.version === base.version);
      return send(200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: base.group === "" ? base.version : `${base.group}/${base.version}`,
        resources: sameVersion.flatMap((r) => [
          { name: r.plural, singularName: "", namespaced: !clusterScoped(r), kind: r.kind, verbs: ["get", "list", "watch", "patch"] },
          { name: `${r.plural}/status`, singularName: "", namespaced: !clusterScoped(r), kind: r.kind, verbs: ["get", "patch", "update"] },
        ]),
      });
    }
    for (const r of this.resources) {
      const prefix = baseOf(r);
      if (!path.startsWith(`${prefix}/`)) continue;
      const rest = path.slice(prefix.length + 1).split("/");
      // /<plural> | /namespaces/<ns>/<plural>[/<name>[/status]] | /<plural>/<name>[/status] (cluster-scoped)
      let namespace: string | undefined;
      if (rest[0] === "namespaces" && rest.length >= 3) {
        namespace = decodeURIComponent(rest[1]!);
        rest.splice(0, 2);
      }
      if (rest[0] !== r.plural) continue;
      const name = rest[1] === undefined ? undefined : decodeURIComponent(rest[1]);
      const subresource = rest[2];
      if (name === undefined) return this.collection(r, namespace, url, req, res, send);
      return this.single(r, namespace ?? "", name, subresource, req, body, send);
    }
    send(404, statusBody(404, "NotFound", "the server could not find the requested resource"));
  }

  private collection(
    r: StandInResource,
    namespace: string | undefined,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
    send: (status: number, payload: unknown) => void,
  ): void {
    if (req.method !== "GET") return send(405, statusBody(405, "MethodNotAllowed", `${req.method} is not allowed on a collection here`));
    if (this.options.forbidden?.includes(r.plural))
      return send(
        403,
        statusBody(
          403,
          "Forbidden",
          `${r.plural}.${r.group} is forbidden: User "kedge" cannot list resource "${r.plural}" in API group "${r.group}" at the cluster scope`,
        ),
      );
    const inScope = (o: Obj) => namespace === undefined || o.metadata.namespace === namespace;
    const watch = url.searchParams.get("watch");
    if (watch === "1" || watch === "true") {
      const from = Number(url.searchParams.get("resourceVersion") || this.rv);
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      if (from < this.compactedBefore) {
        res.end(
          `${JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", `too old resource version: ${from} (${this.compactedBefore})`) })}\n`,
        );
        return;
      }
      for (const e of this.events) if (e.plural === r.plural && e.rv > from && inScope(e.object)) this.send(res, e);
      const watcher = { plural: r.plural, res, from };
      this.watchers.add(watcher);
      const timeout = Number(url.searchParams.get("timeoutSeconds") || 0);
      const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined;
      res.on("close", () => {
        clearTimeout(timer);
        this.watchers.delete(watcher);
      });
      return;
    }
    const items = [...this.objects.get(r.plural)!.values()].filter(inScope);
    send(200, {
      apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`,
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(this.rv) },
      items,
    });
  }

  private single(
    r: StandInResource,
    namespace: string,
    name: string,
    subresource: string | undefined,
    req: IncomingMessage,
    body: string,
    send: (status: number, payload: unknown) => void,
  ): void {
    const byName = this.objects.get(r.plural)!;
    const key = `${clusterScoped(r) ? "" : namespace}/${name}`;
    const current = byName.get(key);
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    const notFound = () => send(404, statusBody(404, "NotFound", `${r.plural}.${r.group} "${name}" not found`));
    if (subresource !== undefined && subresource !== "status") return notFound();
    if (req.method === "GET") return current ? send(200, { apiVersion, kind: r.kind, ...current }) : notFound();
    if (req.method !== "PATCH" || subresource !== "status")
      return send(405, statusBody(405, "MethodNotAllowed", `the stand-in takes only status patches`));
    if (this.options.forbiddenStatus?.includes(r.plural))
      return send(
        403,
        statusBody(
          403,
          "Forbidden",
          `${r.plural}.${r.group} "${name}" is forbidden: User "kedge" cannot patch resource "${r.plural}/status" in API group "${r.group}"`,
        ),
      );
    if (!current) return notFound();
    this.beforeStatusPatch?.(r.plural, namespace, name);
    const latest = byName.get(key)!;
    if (!req.headers["content-type"]?.startsWith("application/merge-patch+json"))
      return send(
        415,
        statusBody(415, "UnsupportedMediaType", `the stand-in takes application/merge-patch+json, not ${req.headers["content-type"]}`),
      );
    const patch = JSON.parse(body) as Json & { metadata?: { resourceVersion?: string } };
    const precondition = patch.metadata?.resourceVersion;
    if (precondition !== undefined && precondition !== latest.metadata.resourceVersion)
      return send(
        409,
        statusBody(
          409,
          "Conflict",
          `Operation cannot be fulfilled on ${r.plural}.${r.group} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        ),
      );
    this.statusWrites.push({ path: `${namespace}/${name}`, body: patch });
    // The status subresource changes status only, whatever else the patch names.
    const status = mergePatch(latest.status, patch.status) as Json;
    const updated = { ...latest, status, metadata: { ...latest.metadata, resourceVersion: String(++this.rv) } };
    byName.set(key, updated);
    this.record(r.plural, "MODIFIED", updated);
    send(200, { apiVersion, kind: r.kind, ...updated });
  }
}

/** What the live-cluster tests before watches used: a stand-in with `forbidden` listings. */
export interface StandIn {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export function startStandIn(resources: StandInResource[], token: string, forbidden: string[] = []): Promise<KubeStandIn> {
  return KubeStandIn.start(resources, { token, forbidden });
}

/** A kubeconfig with one context per stand-in (name → server URL), all with the same bearer token. */
export function kubeconfigFor(contexts: Record<string, string>, token: string): string {
  const entries = Object.entries(contexts);
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    // Plain HTTP on loopback: client-node (like kubectl) accepts it only with TLS verification off.
    clusters: entries.map(([name, server]) => ({ name, cluster: { server, "insecure-skip-tls-verify": true } })),
    users: [{ name: "kedge", user: { token } }],
    contexts: entries.map(([name]) => ({ name, context: { cluster: name, user: "kedge" } })),
    "current-context": entries[0]?.[0] ?? "",
  });
}
