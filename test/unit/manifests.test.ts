/**
 * `kedge manifests` applied, object by object, to a stand-in API server that checks each as the API server
 * would (kinds, required fields, RBAC rules' shape, the Deployment's selector, probes and mounts): every
 * object is created; the RBAC names exactly the rules kedge uses, derived from the lists its code reads, and
 * the same as config/rbac/kedge-sync.yaml; the Deployment runs two leader-elected, non-root, read-only
 * replicas with probes and the Secrets by reference; the packed config loads as kedge.yaml in the Pod.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { runCli } from "../../scripts/cli/program";
import { loadConfig } from "../../scripts/config/load-config";
import { clusterRoleRules, LEASE_RULES, pluralOf, type PolicyRule } from "../../scripts/kube/rbac-rules";
import { READ_KINDS } from "../../src/compile/input/kinds";
import { STATUS_KINDS } from "../../src/compile/status/status-book";
import { KubeStandIn } from "../support/kube-api-stand-in";
import { resource } from "../support/stand-in-resources";

type Json = Record<string, unknown>;

async function kedge(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const dir = mkdtempSync(join(tmpdir(), "kedge-manifests-"));
const config = join(dir, "config");
const wrangler = join(dir, "wrangler.toml");

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** `group|resource|verb` for each permission a list of rules grants. */
const grants = (rules: PolicyRule[]): string[] =>
  rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}|${res}|${v}`)))).sort();

/** Where an object is created: its collection's path. */
function collection(o: Json): string {
  const apiVersion = String(o.apiVersion);
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const namespace = (o.metadata as Json).namespace;
  return `${base}${namespace ? `/namespaces/${String(namespace)}` : ""}/${pluralOf(String(o.kind))}`;
}

describe("kedge manifests", () => {
  let standIn: KubeStandIn;
  let objects: Json[];
  /** What the text run printed on stderr: nothing, for a config the controller can run. */
  let printedErr = "";
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);

  beforeAll(async () => {
    write(
      join(config, "kedge.yaml"),
      `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: shop }
spec:
  gatewayClassName: kedge
  clusters:
    - { name: east, kubeContext: east-admin, kubeconfig: /home/me/.kube/east.yaml } # where kedge runs
    - { name: west, kubeContext: west-admin }
    - { name: lab }
`,
    );
    write(join(config, "clusters", "lab", "ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: { name: lab }\n");
    // Two paths that flatten to one ConfigMap key (sub_a.yaml, sub/a.yaml): both must reach the Pod.
    write(join(config, "clusters", "lab", "sub_a.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: { name: flat }\n");
    write(join(config, "clusters", "lab", "sub", "a.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: { name: nested }\n");
    write(
      wrangler,
      'name = "edge"\nmain = "worker.mjs"\n[vars]\nKEDGE_TABLE = "shop"\n[[kv_namespaces]]\nbinding = "ROUTES"\nid = "0123456789abcdef0123456789abcdef"\n',
    );
    const run = await kedge(
      "manifests",
      "--config",
      config,
      "--wrangler-config",
      wrangler,
      "--cluster",
      "east",
      "--image",
      "reg.example/kedge:1",
    );
    if (run.code !== 0) throw new Error(run.err);
    printedErr = run.err;
    objects = parseAllDocuments(run.out).map((d) => d.toJS() as Json);
    standIn = await KubeStandIn.start([resource("Namespace", [])], { token: "t", strictNamespaces: true });
  });
  afterAll(() => standIn?.close());

  it("every object applies to an API server that checks it, in the order printed", async ({ expect }) => {
    expect(objects.map((o) => o.kind)).toEqual([
      "Namespace",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "ConfigMap",
      "Deployment",
    ]);
    for (const o of objects) {
      const response = await fetch(`${standIn.url}${collection(o)}`, { method: "POST", body: JSON.stringify(o) });
      expect(`${String(o.kind)} ${response.status}`, await response.clone().text()).toBe(`${String(o.kind)} 201`);
    }
    expect(standIn.object("deployments", "kedge-system", "kedge-sync")).toBeDefined();
    // The checks are real: a rule without verbs is refused as the API server refuses it.
    const broken = {
      ...byKind("ClusterRole")[0],
      metadata: { name: "broken" },
      rules: [{ apiGroups: [""], resources: ["services"], verbs: [] }],
    };
    const refused = await fetch(`${standIn.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      method: "POST",
      body: JSON.stringify(broken),
    });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("verbs must contain at least one value");
  });

  it("grants every rule kedge uses and no more: reads of READ_KINDS and others' policies, status patches, Leases", ({ expect }) => {
    const clusterRole = byKind("ClusterRole")[0]!;
    expect(clusterRole.rules).toEqual(clusterRoleRules());
    const granted = grants(clusterRole.rules as PolicyRule[]);
    for (const [kind, groups] of Object.entries(READ_KINDS))
      for (const g of groups) for (const verb of ["get", "list", "watch"]) expect(granted).toContain(`${g}|${pluralOf(kind)}|${verb}`);
    for (const kind of STATUS_KINDS) for (const g of READ_KINDS[kind]!) expect(granted).toContain(`${g}|${pluralOf(kind)}/status|patch`);
    // Writes go through the status subresource only; nothing is created, updated or deleted.
    expect(granted.filter((p) => !/\|(get|list|watch)$/.test(p)).every((p) => p.endsWith("/status|patch"))).toBe(true);
    expect(byKind("Role")[0]!.rules).toEqual(LEASE_RULES);
    expect(grants(LEASE_RULES)).toEqual([
      "coordination.k8s.io|leases|create",
      "coordination.k8s.io|leases|get",
      "coordination.k8s.io|leases|update",
    ]);
    expect(byKind("Role")[0]!.metadata).toMatchObject({ namespace: "kedge-system" });
  });

  it("config/rbac/kedge-sync.yaml grants the same as the generated ClusterRole", ({ expect }) => {
    const documents = parseAllDocuments(readFileSync(join(import.meta.dirname, "..", "..", "config", "rbac", "kedge-sync.yaml"), "utf8"));
    const role = documents.map((d) => d.toJS() as Json).find((o) => o.kind === "ClusterRole")!;
    expect(grants(role.rules as PolicyRule[])).toEqual(grants(clusterRoleRules()));
  });

  it("names each kind's resource as the API server does", ({ expect }) => {
    expect(
      ["Gateway", "GatewayClass", "BackendTLSPolicy", "EndpointSlice", "Namespace", "XBackend", "ServiceImport"].map(pluralOf),
    ).toEqual(["gateways", "gatewayclasses", "backendtlspolicies", "endpointslices", "namespaces", "xbackends", "serviceimports"]);
  });

  it("runs two leader-elected replicas, non-root and read-only, with probes, metrics and the Secrets by reference", ({ expect }) => {
    const deployment = byKind("Deployment")[0]! as { spec: Json & { template: { spec: Json & { containers: Json[]; volumes: Json[] } } } };
    expect(deployment.spec.replicas).toBe(2);
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0]! as Json & { args: string[]; env: Json[] };
    expect(container.image).toBe("reg.example/kedge:1");
    expect(container.args).toEqual(
      expect.arrayContaining(["--remote", "--leader-elect", "--metrics-bind-address", ":8080", "--health-probe-bind-address", ":8081"]),
    );
    expect(container.args.join(" ")).toContain("--config /etc/kedge/config --wrangler-config /etc/kedge/wrangler.toml");
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: "/healthz", port: "probes" } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: "/readyz", port: "probes" } });
    expect(container.ports).toEqual([
      { name: "metrics", containerPort: 8080, protocol: "TCP" },
      { name: "probes", containerPort: 8081, protocol: "TCP" },
    ]);
    expect(container.resources).toMatchObject({ requests: { cpu: "100m", memory: "256Mi" } });
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.env).toContainEqual({ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } });
    expect(container.env).toContainEqual({
      name: "CLOUDFLARE_API_TOKEN",
      valueFrom: { secretKeyRef: { name: "kedge-cloudflare", key: "api-token" } },
    });
    expect(pod.volumes).toContainEqual({ name: "work", emptyDir: {} });
    // West is read through a kubeconfig Secret; east, where it runs, through the ServiceAccount; no Secret is printed.
    expect(pod.volumes).toContainEqual({ name: "kedge-kubeconfig-west", secret: { secretName: "kedge-kubeconfig-west" } });
    expect(pod.volumes.filter((v) => "secret" in v)).toHaveLength(1);
    expect(byKind("Secret")).toEqual([]);
    expect(pod.serviceAccountName).toBe("kedge-sync");
  });

  it("packs a config that loads in the Pod: the home cluster through its ServiceAccount, the others through their Secrets", ({
    expect,
  }) => {
    const configMap = byKind("ConfigMap")[0]! as { data: Record<string, string> };
    const deployment = byKind("Deployment")[0]! as { spec: { template: { spec: { volumes: Json[] } } } };
    const items = (
      deployment.spec.template.spec.volumes.find((v) => v.name === "config")!.configMap as { items: { key: string; path: string }[] }
    ).items;
    const pod = mkdtempSync(join(tmpdir(), "kedge-pod-"));
    for (const { key, path } of items) write(join(pod, path), configMap.data[key]!);
    const edge = parse(readFileSync(join(pod, "config", "kedge.yaml"), "utf8")) as { spec: { clusters: Json[] } };
    expect(edge.spec.clusters).toEqual([
      { name: "east", kubeContext: "inClusterContext" },
      { name: "west", kubeContext: "west-admin", kubeconfig: "/etc/kedge-kubeconfig/west/config" },
      { name: "lab" },
    ]);
    expect(readFileSync(join(pod, "config", "kedge.yaml"), "utf8")).toContain("# where kedge runs");
    const loaded = loadConfig(join(pod, "config"));
    expect(loaded.manifests.map((m) => `${m.cluster}/${m.kind}/${m.metadata.name}`).sort()).toEqual([
      "lab/Namespace/flat",
      "lab/Namespace/lab",
      "lab/Namespace/nested",
    ]);
    expect(readFileSync(join(pod, "wrangler.toml"), "utf8")).toContain('id = "0123456789abcdef0123456789abcdef"');
  });

  it("prints a List for -o json, and refuses a home cluster that is not live (exit 2, with the fix)", async ({ expect }) => {
    const json = await kedge("manifests", "--config", config, "--wrangler-config", wrangler, "-o", "json");
    expect(JSON.parse(json.out)).toMatchObject({ apiVersion: "v1", kind: "List", items: expect.any(Array) });
    expect(printedErr).toBe("");
    const refused = await kedge("manifests", "--config", config, "--wrangler-config", wrangler, "--cluster", "lab");
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("--cluster lab is not a live cluster of kedge.yaml");
    expect(refused.err).toContain("fix: name the cluster the controller runs in: east, west");
    const noWrangler = await kedge("manifests", "--config", config, "--wrangler-config", join(dir, "missing.toml"));
    expect(noWrangler.code).toBe(2);
  });

  it("warns of what would make the controller fail or push in vain: a placeholder KV namespace id, a table its Worker does not serve", async ({
    expect,
  }) => {
    const placeholder = join(dir, "placeholder.toml");
    write(
      placeholder,
      'name = "edge"\nmain = "worker.mjs"\n[vars]\nKEDGE_TABLE = "kedge"\n[[kv_namespaces]]\nbinding = "ROUTES"\nid = "REPLACE_WITH_ROUTES_NAMESPACE_ID"\n',
    );
    const run = await kedge("manifests", "--config", config, "--wrangler-config", placeholder, "--cluster", "east");
    expect(run.code).toBe(0);
    expect(parseAllDocuments(run.out).length).toBeGreaterThan(3);
    expect(run.err).toContain(`! ${placeholder} [[kv_namespaces]] ROUTES has id "REPLACE_WITH_ROUTES_NAMESPACE_ID", not a KV namespace id`);
    expect(run.err).toContain(`serves table "kedge" (vars.KEDGE_TABLE), but this config is table "shop"`);
  });
});
