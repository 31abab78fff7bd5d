/** Starts loopback echo origins for infra-backend-v1..v3 (in node) and hands their ports to the Worker tests. */
import type { TestProject } from "vitest/node";
import { startOrigin } from "../../scripts/lib/origin-server";

declare module "vitest" {
  export interface ProvidedContext {
    originPorts: { v1: number; v2: number; v3: number };
  }
}

export default async function setup(project: TestProject) {
  const origins = await Promise.all(
    (["v1", "v2", "v3"] as const).map((v) =>
      startOrigin({ cluster: "c1", endpoint: `infra-backend-${v}`, backends: [`infra-backend-${v}`] }),
    ),
  );
  project.provide("originPorts", { v1: origins[0]!.port, v2: origins[1]!.port, v3: origins[2]!.port });
  return async () => {
    await Promise.all(origins.map((o) => o.close()));
  };
}
