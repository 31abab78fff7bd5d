/**
 * @module A stand-in Kubernetes API server on 127.0.0.1 for the live-cluster tests: discovery (`/api`,
 * `/api/v1`, `/apis`, `/apis/<group>/<version>`) and the all-namespaces list of each resource, answered
 * with API-server-shaped JSON (typed lists whose items carry no kind, metadata.resourceVersion ...). It
 * answers 401 to a wrong bearer token (kubectl sends none to a plain-HTTP server), and 403 for the
 * resources it is told to refuse. Checked by hand with the real kubectl (Debian's package): `kubectl --kubeconfig F
 * get gateways.gateway.networking.k8s.io,httproutes,services -A -o yaml` lists these objects.
 */
import { createServer, type Server } from "node:http";

/** One resource the stand-in serves: its group, version, plural name, kind, and objects (as written in YAML, without apiVersion/kind). */
export interface StandInResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  items: Record<string, unknown>[];
}

export interface StandIn {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

const json = (body: unknown) => JSON.stringify(body);

export function startStandIn(resources: StandInResource[], token: string, forbidden: string[] = []): Promise<StandIn> {
  const requests: string[] = [];
  const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => `${r.group}/${r.version}`))];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push(path);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(json(body));
    };
    // kubectl sends no token to a plain-HTTP server; a wrong one is refused.
    if (req.headers.authorization !== undefined && req.headers.authorization !== `Bearer ${token}`)
      return send(401, { kind: "Status", apiVersion: "v1", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    if (path === "/api") return send(200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    if (path === "/apis")
      return send(200, {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: groups.map((gv) => {
          const [name, version] = gv.split("/") as [string, string];
          return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
        }),
      });
    const base = resources.find((r) => path === (r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`));
    if (base) {
      const sameVersion = resources.filter((r) => r.group === base.group && r.version === base.version);
      return send(200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: base.group === "" ? base.version : `${base.group}/${base.version}`,
        resources: sameVersion.map((r) => ({
          name: r.plural,
          singularName: "",
          namespaced: r.kind !== "GatewayClass",
          kind: r.kind,
          verbs: ["get", "list", "watch"],
        })),
      });
    }
    const listed = resources.find((r) => path === `${r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`}/${r.plural}`);
    if (!listed)
      return send(404, {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        code: 404,
      });
    if (forbidden.includes(listed.plural))
      return send(403, {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        message: `${listed.plural}.${listed.group} is forbidden: User "kedge" cannot list resource "${listed.plural}" in API group "${listed.group}" at the cluster scope`,
        reason: "Forbidden",
        code: 403,
      });
    return send(200, {
      apiVersion: listed.group === "" ? listed.version : `${listed.group}/${listed.version}`,
      kind: `${listed.kind}List`,
      metadata: { resourceVersion: "4711" },
      items: listed.items.map((item, i) => ({
        ...item,
        metadata: { uid: `uid-${listed.plural}-${i}`, resourceVersion: "4711", ...(item.metadata as object) },
      })),
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** A kubeconfig with one context per stand-in (name → server URL), all with the same bearer token. */
export function kubeconfigFor(contexts: Record<string, string>, token: string): string {
  const entries = Object.entries(contexts);
  return json({
    apiVersion: "v1",
    kind: "Config",
    // Plain HTTP on loopback: client-node (like kubectl) accepts it only with TLS verification off.
    clusters: entries.map(([name, server]) => ({ name, cluster: { server, "insecure-skip-tls-verify": true } })),
    users: [{ name: "kedge", user: { token } }],
    contexts: entries.map(([name]) => ({ name, context: { cluster: name, user: "kedge" } })),
    "current-context": entries[0]?.[0] ?? "",
  });
}
