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
 * Lists are paged when asked (`limit`, `continue`; a continue token it has forgotten is 410 Expired, as
 * after an etcd compaction); watches that ask for bookmarks get one every `bookmarkMs`. Besides the kinds a
 * test gives it, it serves what `kedge manifests` prints and leader election uses (stand-in-writes.ts):
 * Namespaces, ServiceAccounts, ConfigMaps, Secrets, RBAC, Deployments and coordination.k8s.io/v1 Leases,
 * created with POST (409 AlreadyExists) and replaced with PUT (409 Conflict when the resourceVersion
 * precondition fails), each checked as the API server would (stand-in-admission.ts, 422 Invalid).
 * The test changes objects as a user would (apply, remove, another controller's status), and can stop
 * answering (connections refused) and start again on the same port.
 *
 * Checked by hand with the real kubectl (Debian's package), against a kubeconfig from kubeconfigFor:
 * `kubectl get gateways.gateway.networking.k8s.io,httproutes,services -A -o yaml` lists these objects,
 * `kubectl get httproutes -A --watch` prints changes as they are applied, and
 * `kubectl patch httproute web -n shop --subresource=status --type=merge -p '{"status":{...}}'` writes a status.
 * For leader election and `kedge manifests`: `kubectl --server URL get leases -A` lists the Lease kedge
 * holds, and `kedge manifests | kubectl --server URL apply -f -` creates every object (see the report of #41).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { discoveryAnswer, statusBody } from "./stand-in-wire";
import {
  BUILTIN_RESOURCES,
  createObject,
  deleteObject,
  pageOf,
  patchObject,
  patchStatus,
  replaceObject,
  type WriteContext,
} from "./stand-in-writes";

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

const CLUSTER_SCOPED = ["GatewayClass", "Namespace", "ClusterRole", "ClusterRoleBinding"];
export const clusterScoped = (r: StandInResource): boolean => r.clusterScoped ?? CLUSTER_SCOPED.includes(r.kind);

export interface StandInOptions {
  token: string;
  /** Plurals whose listing (and watch) is refused with 403. */
  forbidden?: string[];
  /** Plurals whose status writes are refused with 403. */
  forbiddenStatus?: string[];
  /** Every this many ms, a BOOKMARK event on each watch that asked for them (allowWatchBookmarks). */
  bookmarkMs?: number;
  /** Objects created in a namespace that no Namespace object names are refused (404), as the API server does. */
  strictNamespaces?: boolean;
}

type Json = Record<string, unknown>;
export type Obj = Json & {
  metadata: Json & { name: string; namespace?: string; resourceVersion: string; generation: number; uid: string };
};

interface Event {
  rv: number;
  plural: string;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: Obj;
}

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
  /** Lists being read page by page: a continue token's snapshot, until expireContinueTokens(). */
  readonly pagedLists = new Map<string, Obj[]>();
  /** BOOKMARK events sent, in all. */
  bookmarksSent = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server;
  private port = 0;

  private readonly resources: StandInResource[];

  private constructor(
    resources: StandInResource[],
    readonly options: StandInOptions,
  ) {
    this.resources = [
      ...resources,
      ...BUILTIN_RESOURCES.filter((b) => !resources.some((r) => r.plural === b.plural)).map((b) => ({ ...b, items: [] })),
    ];
    for (const r of this.resources) {
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

  resource(plural: string): StandInResource {
    const r = this.resources.find((x) => x.plural === plural);
    if (!r) throw new Error(`the stand-in serves no ${plural}`);
    return r;
  }

  stamp(r: StandInResource, item: Json, generation: number): Obj {
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

  record(plural: string, type: Event["type"], object: Obj): void {
    const event: Event = { rv: Number(object.metadata.resourceVersion), plural, type, object };
    this.events.push(event);
    for (const w of this.watchers) if (w.plural === plural) this.send(w.res, event);
  }

  private send(res: ServerResponse, event: Event): void {
    const r = this.resource(event.plural);
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    res.write(`${JSON.stringify({ type: event.type, object: { apiVersion, kind: r.kind, ...event.object } })}\n`);
  }

  /**
   * Creates or replaces an object's spec (and other top-level fields but status), as `kubectl apply` would.
   * `dropEvent`: no watch hears of it, as when a stream died quietly; only a list finds it.
   */
  apply(plural: string, item: Json, dropEvent = false): Obj {
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
    if (!dropEvent) this.record(plural, before ? "MODIFIED" : "ADDED", obj);
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

  /** The changes recorded to one resource's objects, oldest first (a Lease's history of holders). */
  eventsOf(plural: string): { type: string; object: Obj }[] {
    return this.events.filter((e) => e.plural === plural).map(({ type, object }) => ({ type, object }));
  }

  /** Every object of a resource, by namespace/name. */
  objectsOf(plural: string): Map<string, Obj> {
    return this.objects.get(plural)!;
  }

  /** Continue tokens handed out so far are forgotten: the next page asked with one is 410 Expired. */
  expireContinueTokens(): void {
    this.pagedLists.clear();
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
    const marker = url.searchParams.has("watch") ? "?watch" : url.searchParams.has("continue") ? "?continue" : "";
    this.requests.push(`${req.method === "GET" ? "" : `${req.method} `}${path}${marker}`);
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
    const discovery = discoveryAnswer(this.resources, path);
    if (discovery) return send(200, discovery);
    const baseOf = (r: StandInResource) => (r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`);
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
      if (name === undefined) return this.collection(r, namespace, url, req, res, body, send);
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
    body: string,
    send: (status: number, payload: unknown) => void,
  ): void {
    if (req.method === "POST") return createObject(this.writeContext(), r, namespace, body, send, url.searchParams.get("dryRun") === "All");
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
      const bookmarks =
        this.options.bookmarkMs && url.searchParams.get("allowWatchBookmarks") === "true"
          ? setInterval(() => this.bookmark(r, res), this.options.bookmarkMs)
          : undefined;
      res.on("close", () => {
        clearTimeout(timer);
        clearInterval(bookmarks);
        this.watchers.delete(watcher);
      });
      return;
    }
    const items = [...this.objects.get(r.plural)!.values()].filter(inScope);
    const page = pageOf(this, items, url);
    if ("expired" in page) return send(410, statusBody(410, "Expired", page.expired));
    send(200, {
      apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`,
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(this.rv), ...(page.continue ? { continue: page.continue } : {}) },
      items: page.items,
    });
  }

  /** A BOOKMARK: the resourceVersion the watch has reached, nothing else of an object. */
  private bookmark(r: StandInResource, res: ServerResponse): void {
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    this.bookmarksSent++;
    res.write(
      `${JSON.stringify({ type: "BOOKMARK", object: { apiVersion, kind: r.kind, metadata: { resourceVersion: String(this.rv) } } })}\n`,
    );
  }

  /** What the writes of stand-in-writes.ts change. */
  private writeContext(): WriteContext {
    return {
      standIn: this,
      nextVersion: () => String(++this.rv),
      statusPatched: (path, patch) => this.statusWrites.push({ path, body: patch }),
    };
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
    const dryRun = new URL(req.url ?? "/", "http://stand-in").searchParams.get("dryRun") === "All";
    if (req.method === "PUT" && subresource === undefined)
      return replaceObject(this.writeContext(), r, namespace, name, body, send, dryRun);
    if (req.method === "DELETE" && subresource === undefined) return deleteObject(this.writeContext(), r, namespace, name, send);
    if (req.method === "PATCH" && subresource === undefined)
      return patchObject(this.writeContext(), r, namespace, name, req.headers["content-type"], body, send, dryRun);
    if (req.method !== "PATCH" || subresource !== "status")
      return send(405, statusBody(405, "MethodNotAllowed", `the stand-in takes GET, POST, PUT, PATCH and DELETE`));
    if (!current) return notFound();
    patchStatus(this.writeContext(), r, namespace, name, req.headers["content-type"], body, send);
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

export { kubeconfigFor, mergePatch, statusBody } from "./stand-in-wire";
