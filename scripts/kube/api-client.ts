/**
 * @module One cluster's Kubernetes API, as kubectl speaks to it: the user's kubeconfig (loaded and applied
 * to each request by `@kubernetes/client-node`, so tokens, client certificates and exec plugins work as
 * in kubectl), plain requests with a timeout, and watch streams read line by line. Errors name the
 * cluster, its context and server, and say how to check them with kubectl.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { UserError } from "../sync/user-error";

const TIMEOUT_MS = 15_000;

export interface ApiAnswer {
  status: number;
  body: string;
}

/** What a Status body (the API's error answer) says, or the body itself. */
export function statusMessage(answer: ApiAnswer): string {
  try {
    return (JSON.parse(answer.body) as { message?: string }).message ?? answer.body;
  } catch {
    return answer.body;
  }
}

/** The cluster's API cannot be reached (refused, reset, timed out): a snapshot may stand in for it. */
export class ApiUnreachable extends UserError {
  override name = "ApiUnreachable";
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
    return new KubeApi(cluster, kc, new URL(server));
  }

  private async open(method: string, path: string, headers: Record<string, string>): Promise<{ req: ClientRequest; url: URL }> {
    const options: RequestOptions = { method, headers: { accept: "application/json", ...headers } };
    await this.kc.applyToHTTPSOptions(options);
    const url = new URL(path, this.server);
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    return { req: send(url, options), url };
  }

  private unreachable(error: unknown): ApiUnreachable {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return new ApiUnreachable(
      `${this.where}: the API server cannot be reached (${code})`,
      `check it with \`kubectl --context ${this.cluster.kubeContext} get namespaces\``,
    );
  }

  /** One request; an unreachable server is an ApiUnreachable, an answer of any status is returned. */
  async request(method: string, path: string, body?: { type: string; text: string }): Promise<ApiAnswer> {
    const { req } = await this.open(method, path, body ? { "content-type": body.type } : {});
    return new Promise((resolve, reject) => {
      req.on("response", (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (error) => reject(this.unreachable(error)));
      });
      req.setTimeout(TIMEOUT_MS, () =>
        req.destroy(Object.assign(new Error(`no answer within ${TIMEOUT_MS / 1000} s`), { code: "ETIMEDOUT" })),
      );
      req.on("error", (error) => reject(this.unreachable(error)));
      req.end(body?.text);
    });
  }

  /**
   * A streaming GET (a watch): `onLine` gets each line of the answer as it arrives. Resolves with the
   * status when the stream ends (the server closed it, or `signal` aborted it); a non-200 answer's body
   * comes back whole instead.
   */
  async stream(path: string, onLine: (line: string) => void, signal: AbortSignal): Promise<ApiAnswer> {
    const { req } = await this.open("GET", path, {});
    return new Promise((resolve, reject) => {
      const abort = () => req.destroy();
      signal.addEventListener("abort", abort, { once: true });
      const done = () => signal.removeEventListener("abort", abort);
      req.on("response", (res: IncomingMessage) => {
        let pending = "";
        let whole = "";
        let finished = false;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (res.statusCode !== 200) {
            whole += chunk;
            return;
          }
          pending += chunk;
          let newline = pending.indexOf("\n");
          while (newline !== -1) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            if (line) onLine(line);
            newline = pending.indexOf("\n");
          }
        });
        const end = () => {
          if (finished) return;
          finished = true;
          done();
          if (pending.trim() && res.statusCode === 200) onLine(pending.trim());
          resolve({ status: res.statusCode ?? 0, body: whole });
        };
        res.on("end", end);
        res.on("close", end);
        res.on("error", (error) => {
          done();
          if (signal.aborted) resolve({ status: res.statusCode ?? 0, body: whole });
          else reject(this.unreachable(error));
        });
      });
      req.on("error", (error) => {
        done();
        if (signal.aborted) resolve({ status: 0, body: "" });
        else reject(this.unreachable(error));
      });
      req.end();
    });
  }
}
