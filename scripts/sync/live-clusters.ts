/**
 * @module A cluster read through the Kubernetes API (kedge.yaml `kubeContext`), with the user's kubeconfig
 * (`@kubernetes/client-node` loads it and signs each request, as kubectl does). Like kubectl, it asks the
 * API server which versions it serves (discovery), then lists every kind kedge reads in all namespaces;
 * the answers are the API server's JSON lists, read by the same parser as `kubectl get -o json` output.
 * A kind the cluster does not have (its CRD not installed) is skipped. A cluster that cannot be reached, or
 * that refuses the listing, stops the sync with its name and the reason: its objects are never dropped
 * from the table in silence.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { READ_KINDS } from "../../src/compile/input/kinds";
import type { Manifest } from "../../src/gateway-api/manifest";
import { parseManifestFile, type SkippedDocument } from "../../src/gateway-api/parse-manifests";
import { UserError } from "./user-error";

const TIMEOUT_MS = 15_000;

interface Answer {
  status: number;
  body: string;
}

/** One GET against the API server, authenticated as the kubeconfig's user of the context. */
async function get(kc: KubeConfig, server: URL, path: string): Promise<Answer> {
  const options: RequestOptions = { method: "GET", headers: { accept: "application/json" } };
  await kc.applyToHTTPSOptions(options);
  const url = new URL(path, server);
  const send = url.protocol === "http:" ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.setTimeout(TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error(`no answer within ${TIMEOUT_MS / 1000} s`), { code: "ETIMEDOUT" })),
    );
    req.on("error", reject);
    req.end();
  });
}

/** The kubeconfig with the cluster's context selected; a missing file or context is a UserError. */
function kubeConfigFor(cluster: ClusterSettings): { kc: KubeConfig; server: URL } {
  const kc = new KubeConfig();
  try {
    if (cluster.kubeconfig) kc.loadFromFile(cluster.kubeconfig);
    else kc.loadFromDefault();
  } catch (error) {
    throw new UserError(
      `cluster ${cluster.name}: cannot read the kubeconfig ${cluster.kubeconfig ?? process.env.KUBECONFIG ?? "~/.kube/config"}: ${(error as Error).message}`,
      "point kubeconfig (or $KUBECONFIG) at a readable file",
    );
  }
  const context = cluster.kubeContext!;
  if (!kc.getContexts().some((c) => c.name === context)) {
    const known = kc.getContexts().map((c) => c.name);
    throw new UserError(
      `cluster ${cluster.name}: the kubeconfig has no context ${context}`,
      known.length > 0 ? `contexts: ${known.join(", ")}` : "add it with kubectl config set-context",
    );
  }
  kc.setCurrentContext(context);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new UserError(`cluster ${cluster.name}: context ${context} names no cluster server`, "fix the kubeconfig");
  return { kc, server: new URL(server) };
}

/** One resource of the API to list: where, and which kind it holds. */
interface Listing {
  path: string;
  kind: string;
}

/** What the API server serves of the kinds kedge reads, at each group's preferred version (discovery). */
async function listings(ask: (path: string) => Promise<Answer>): Promise<Listing[]> {
  const wanted = new Map<string, Set<string>>();
  for (const [kind, groups] of Object.entries(READ_KINDS)) for (const g of groups) wanted.set(g, (wanted.get(g) ?? new Set()).add(kind));
  const result: Listing[] = [];
  const resourcesAt = async (base: string, kinds: Set<string>) => {
    const answer = await ask(base);
    if (answer.status === 404) return;
    const list = JSON.parse(answer.body) as { resources?: { name: string; kind: string }[] };
    for (const r of list.resources ?? [])
      if (!r.name.includes("/") && kinds.has(r.kind)) result.push({ path: `${base}/${r.name}`, kind: r.kind });
  };
  await resourcesAt("/api/v1", wanted.get("") ?? new Set());
  const groups = JSON.parse((await ask("/apis")).body) as { groups?: { name: string; preferredVersion?: { groupVersion: string } }[] };
  for (const group of groups.groups ?? []) {
    const kinds = wanted.get(group.name);
    if (kinds && group.preferredVersion) await resourcesAt(`/apis/${group.preferredVersion.groupVersion}`, kinds);
  }
  return result;
}

/** Every object kedge reads from one live cluster, read as the parser reads a `kubectl get -o json` file. */
export async function readLiveCluster(cluster: ClusterSettings): Promise<{ manifests: Manifest[]; skipped: SkippedDocument[] }> {
  const { kc, server } = kubeConfigFor(cluster);
  const where = `cluster ${cluster.name} (context ${cluster.kubeContext}, ${server.origin})`;
  const ask = async (path: string): Promise<Answer> => {
    let answer: Answer;
    try {
      answer = await get(kc, server, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UserError(
        `${where}: the API server cannot be reached (${code}); nothing was written`,
        `check it with \`kubectl --context ${cluster.kubeContext} get namespaces\``,
      );
    }
    if (answer.status === 401 || answer.status === 403) {
      const message = (() => {
        try {
          return (JSON.parse(answer.body) as { message?: string }).message ?? answer.body;
        } catch {
          return answer.body;
        }
      })();
      throw new UserError(
        `${where}: not allowed to read ${path} (HTTP ${answer.status}: ${message.slice(0, 200)}); nothing was written`,
        "grant the context's user get and list on the kinds kedge reads (see README: live clusters)",
      );
    }
    if (answer.status !== 200 && answer.status !== 404)
      throw new UserError(`${where}: ${path} answered HTTP ${answer.status}; nothing was written`, "check the API server's health");
    return answer;
  };
  const manifests: Manifest[] = [];
  const skipped: SkippedDocument[] = [];
  for (const listing of await listings(ask)) {
    const answer = await ask(listing.path);
    if (answer.status === 404) continue;
    const parsed = parseManifestFile(cluster.name, `kube:${cluster.kubeContext}${listing.path}`, answer.body);
    manifests.push(...parsed.manifests);
    skipped.push(...parsed.skipped);
  }
  return { manifests, skipped };
}
