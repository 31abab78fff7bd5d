/**
 * @module One cluster's Kubernetes API, as kubectl speaks to it: the user's kubeconfig (loaded and applied
 * to each request by `@kubernetes/client-node`, so tokens, client certificates and exec plugins work as
 * in kubectl), plain requests with a timeout, and watch streams read line by line. Errors name the
 * cluster, its context and server, and say how to check them with kubectl.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { createRequire } from "node:module";
import type * as KubeClient from "@kubernetes/client-node";
import type { KubeConfig } from "@kubernetes/client-node";
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { UserError } from "../lib/user-error";
import { jsonOrNull } from "../lib/json";
import { STATUS } from "./api-answers";

const TIMEOUT_MS = 15_000;
/** TCP keepalive probes on every connection: a watch on a peer that vanished ends in minutes, not never. */
const KEEPALIVE_MS = 30_000;

/**
 * The client's KubeConfig, loaded on first use: importing `@kubernetes/client-node` costs 0.5-0.7 s here, which
 * every command that reads no live cluster (help, validate, a sync of folders) would otherwise pay at its start.
 */
function newKubeConfig(): KubeConfig {
  // Its undici needs Node 22.19: on Node 20 the require fails deep inside it, with a message about `bind`.
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 19))
    throw new UserError(
      `reading live clusters (kubeContext) needs Node 22.19 or later (@kubernetes/client-node 2), and this is Node ${process.versions.node}`,
      "run kedge on Node 22.19+ or 24; folder clusters (path) work on Node 20.19",
    );
  const client = createRequire(import.meta.url)("@kubernetes/client-node") as typeof KubeClient;
  return new client.KubeConfig();
}

export interface ApiAnswer {
  status: number;
  body: string;
}

/** What a Status body (the API's error answer) says, or the body itself. */
export function statusMessage(answer: ApiAnswer): string {
  return jsonOrNull(answer.body, STATUS)?.message ?? answer.body;
}

/** The cluster's API cannot be reached (refused, reset, timed out): a snapshot may stand in for it. */
export class ApiUnreachable extends UserError {
  override name = "ApiUnreachable";
}

/** Where a ServiceAccount's token is when kedge runs in a cluster (the client library then reads it as `inClusterContext`). */
const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/** Whether kedge runs in a Pod: its ServiceAccount's token is mounted and the API server is named in its environment. */
export const inPod = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN);

/** What a KubeApi reads of a cluster's settings, for one that kedge.yaml does not name (the Lease's cluster). */
const IN_CLUSTER_SETTINGS: ClusterSettings = {
  name: "in-cluster",
  weight: 1,
  state: "Serving",
  priority: 0,
  endpoints: { from: "EndpointSlice", scheme: "http" },
};

/**
 * Where a default kubeconfig is looked for, as kubectl and the client library look: each file of $KUBECONFIG,
 * else ~/.kube/config; null when one of them exists (or kedge runs in a cluster). Without any, the library
 * makes up a context `loaded-context` for http://localhost:8080, which names nothing the user has.
 */
export function missingKubeconfig(env: NodeJS.ProcessEnv = process.env, home = homedir()): string | null {
  const listed = (env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  if (listed.length > 0) return null; // a listed file that is missing is the library's own error, with its path
  const file = join(home, ".kube", "config");
  if (existsSync(file) || existsSync(SERVICE_ACCOUNT_TOKEN)) return null;
  return `$KUBECONFIG is not set and ${file} does not exist`;
}

export class KubeApi {
  /** `cluster <name> (context <ctx>, <server>)`, for messages. */
  readonly where: string;

  private constructor(
    readonly cluster: ClusterSettings,
    private readonly kc: KubeConfig,
    readonly server: URL,
  ) {
    this.where = `cluster ${cluster.name} (context ${cluster.kubeContext}, ${server.origin})`;
  }

  /** The kubeconfig with the cluster's context selected; a missing file or context is a UserError. */
  static forCluster(cluster: ClusterSettings): KubeApi {
    const kc = newKubeConfig();
    const missing = cluster.kubeconfig ? null : missingKubeconfig();
    if (missing)
      throw new UserError(
        `cluster ${cluster.name}: no kubeconfig found to read context ${cluster.kubeContext} from (${missing})`,
        `point $KUBECONFIG at your kubeconfig, or name it in kedge.yaml (clusters[].kubeconfig), or write ~/.kube/config (your provider's get-credentials command does, e.g. \`gcloud container clusters get-credentials\`, \`aws eks update-kubeconfig\`, \`az aks get-credentials\`); \`kubectl --context ${cluster.kubeContext} get namespaces\` checks it`,
      );
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
    return new KubeApi(cluster, kc, new URL(server));
  }

  private async open(method: string, path: string, headers: Record<string, string>): Promise<ClientRequest> {
    const options: RequestOptions = { method, headers: { accept: "application/json", ...headers } };
    try {
      await this.kc.applyToHTTPSOptions(options);
    } catch (error) {
      // An exec credential plugin or token file that failed: retried like an unreachable server.
      throw new ApiUnreachable(
        `${this.where}: cannot get credentials from the kubeconfig (${(error as Error).message})`,
        `check them with \`kubectl --context ${this.cluster.kubeContext} get namespaces\``,
      );
    }
    const url = new URL(path, this.server);
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, options);
    // A connection whose peer vanished without a reset is noticed (a watch would wait on it for ever).
    req.on("socket", (socket) => socket.setKeepAlive(true, KEEPALIVE_MS));
    return req;
  }

  private unreachable(error: unknown): ApiUnreachable {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return new ApiUnreachable(
      `${this.where}: the API server cannot be reached (${code})`,
      `check it with \`kubectl --context ${this.cluster.kubeContext} get namespaces\``,
    );
  }

  /**
   * The cluster kedge runs in, through its ServiceAccount (`inClusterContext`), whatever kubeconfig is
   * mounted for the other clusters: where leader election's Lease is kept when kedge runs in a Pod.
   */
  static inCluster(name = "in-cluster"): KubeApi {
    const kc = newKubeConfig();
    try {
      kc.loadFromCluster();
    } catch (error) {
      throw new UserError(
        `cannot read the Pod's ServiceAccount (${(error as Error).message})`,
        "run kedge in a Pod with a ServiceAccount token mounted, or name a context with --leader-elect-context",
      );
    }
    const server = kc.getCurrentCluster()?.server;
    if (!server || server.includes("undefined"))
      throw new UserError(
        "the Pod's environment names no API server (KUBERNETES_SERVICE_HOST is not set)",
        "name a context with --leader-elect-context",
      );
    return new KubeApi({ ...IN_CLUSTER_SETTINGS, name, kubeContext: kc.getCurrentContext() }, kc, new URL(server));
  }

  /** One request; an unreachable server is an ApiUnreachable, an answer of any status is returned. */
  async request(method: string, path: string, body?: { type: string; text: string }, timeoutMs = TIMEOUT_MS): Promise<ApiAnswer> {
    const req = await this.open(method, path, body ? { "content-type": body.type } : {});
    return new Promise((resolve, reject) => {
      req.on("response", (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (error) => reject(this.unreachable(error)));
      });
      req.setTimeout(timeoutMs, () =>
        req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: "ETIMEDOUT" })),
      );
      req.on("error", (error) => reject(this.unreachable(error)));
      req.end(body?.text);
    });
  }

  /**
   * A streaming GET (a watch): `onLine` gets each complete line of the answer as it arrives. Resolves
   * with the status when the stream ends: the server closed it, `signal` aborted it, or `deadlineMs` passed
   * (the server's own timeout plus a grace, for a server that is gone without a word); a line cut off by
   * the end is dropped, never parsed. A non-200 answer's body comes back whole instead. `onLine` throwing
   * ends the stream, and the error is the promise's.
   */
  async stream(path: string, onLine: (line: string) => void, signal: AbortSignal, deadlineMs: number): Promise<ApiAnswer> {
    const req = await this.open("GET", path, {});
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal.removeEventListener("abort", abort);
        outcome();
      };
      const abort = () => {
        settle(() => resolve({ status: 0, body: "" }));
        req.destroy();
      };
      const deadline = setTimeout(abort, deadlineMs);
      if (signal.aborted) return abort();
      signal.addEventListener("abort", abort, { once: true });
      req.on("response", (res: IncomingMessage) => {
        let pending = "";
        let whole = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (res.statusCode !== 200) {
            whole += chunk;
            return;
          }
          pending += chunk;
          let newline = pending.indexOf("\n");
          while (newline !== -1 && !settled) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            try {
              if (line) onLine(line);
            } catch (error) {
              settle(() => reject(error));
              req.destroy();
              return;
            }
            newline = pending.indexOf("\n");
          }
        });
        // Only a clean end completes the stream; what is left then is a line the server never finished.
        res.on("end", () => settle(() => resolve({ status: res.statusCode ?? 0, body: whole })));
        res.on("close", () => settle(() => resolve({ status: res.statusCode ?? 0, body: whole })));
        res.on("error", (error) => settle(() => (signal.aborted ? resolve({ status: 0, body: "" }) : reject(this.unreachable(error)))));
      });
      req.on("error", (error) => settle(() => (signal.aborted ? resolve({ status: 0, body: "" }) : reject(this.unreachable(error)))));
      req.end();
    });
  }
}
