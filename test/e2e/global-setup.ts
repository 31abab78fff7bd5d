/** Bundles the Worker once for every end-to-end file. */
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bundleWorker } from "../../scripts/dev/local-gateway";
import { ROOT } from "./harness";

declare module "vitest" {
  export interface ProvidedContext {
    workerBundle: string;
  }
}

export default async function setup(project: TestProject) {
  project.provide("workerBundle", await bundleWorker(join(ROOT, ".wrangler", "e2e-bundle")));
}
