/** Compiled endpoints for tests of the pure routing parts. */
import type { CompiledEndpoint } from "../../src/table/route-table";

/** A ready, serving endpoint `<cluster>/10.0.0.<n>:80` of weight 1. */
export const readyEndpoint = (cluster: string, n: number): CompiledEndpoint => ({
  id: `${cluster}/10.0.0.${n}:80`,
  cluster,
  scheme: "http",
  host: `10.0.0.${n}`,
  port: 80,
  weight: 1,
  ready: true,
  serving: true,
  terminating: false,
});
