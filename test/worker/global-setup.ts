/**
 * The node side of the Worker tests: loopback echo origins for infra-backend-v1..v3, and a compile server.
 * The Worker never imports the compiler (nor the schemas it checks objects against), so the tests that
 * need a compiled table ask this server for it, as the sync would compile it, and publish what it returns.
 */
import { createServer, type Server } from "node:http";
import type { TestProject } from "vitest/node";
import { startOrigin } from "../../scripts/dev/origin-server";
import { planStorage } from "../../src/table/shard-table";
import { compileYaml } from "../support/compile-fixture";

declare module "vitest" {
  export interface ProvidedContext {
    originPorts: { v1: number; v2: number; v3: number };
    compilerPort: number;
  }
}

/** POST /compile {edge, clusters} → CompileResult; with {shardBytes}, also the storage plan. */
async function startCompiler(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const { edge, clusters, shardBytes } = JSON.parse(body) as { edge: string; clusters: Record<string, string>; shardBytes?: number };
      compileYaml(edge, clusters)
        .then((result) => {
          const planned = shardBytes === undefined ? undefined : planStorage(result.table, { shardBytes });
          // Each shard's text is made when asked: made here, for the Worker's side to publish.
          const plan = planned?.ok
            ? {
                ok: true,
                plan: {
                  table: planned.plan.table,
                  root: planned.plan.root,
                  shards: planned.plan.shards.map((s) => ({ value: s.value(), text: s.text() })),
                },
              }
            : planned;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ ...result, ...(plan ? { plan } : {}) }));
        })
        .catch((error: unknown) => {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(error instanceof Error ? error.stack : error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return server;
}

export default async function setup(project: TestProject) {
  const origins = await Promise.all(
    (["v1", "v2", "v3"] as const).map((v) =>
      startOrigin({ cluster: "c1", endpoint: `infra-backend-${v}`, backends: [`infra-backend-${v}`] }),
    ),
  );
  const compiler = await startCompiler();
  project.provide("originPorts", { v1: origins[0]!.port, v2: origins[1]!.port, v3: origins[2]!.port });
  project.provide("compilerPort", (compiler.address() as { port: number }).port);
  return async () => {
    await Promise.all(origins.map((o) => o.close()));
    await new Promise((resolve) => compiler.close(resolve));
  };
}
