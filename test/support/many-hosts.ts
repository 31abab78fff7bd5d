/** @module A table spread over many hostnames (exact, wildcard and none), for the sharding tests. */
import { type BackendPorts, infraRoute, infraYaml } from "./conformance-infra";

/** Route `i`'s hostnames: two exact hosts (shared with neighbours), a wildcard, or none (catch-all). */
export function hostnamesOf(i: number): string[] {
  if (i % 97 === 7) return [];
  if (i % 10 === 0) return [`"*.w${i % 3}.example"`];
  return [`h${i % 60}.example`, `h${(i + 1) % 60}.example`];
}

/** `routes` HTTPRoutes on the conformance Gateway, each with a PathPrefix /r<i> to one of v1..v3. */
export function manyHostsYaml(ports: BackendPorts, routes = 300): string {
  const docs = [infraYaml(ports)];
  for (let i = 0; i < routes; i++) {
    const hostnames = hostnamesOf(i);
    const mirror =
      i % 9 === 0
        ? `\n      filters: [{ type: RequestMirror, requestMirror: { backendRef: { name: infra-backend-v3, port: 8080 } } }]`
        : "";
    const header = i % 5 === 1 ? `, headers: [{ name: x-shard, value: "yes" }]` : "";
    const route = infraRoute(
      `    - matches: [{ path: { type: PathPrefix, value: /r${i} }${header} }]${mirror}
      backendRefs: [{ name: infra-backend-v${1 + (i % 3)}, port: 8080 }]`,
      `r${i}`,
    ).replace("  rules:", hostnames.length > 0 ? `  hostnames: [${hostnames.join(", ")}]\n  rules:` : "  rules:");
    docs.push(route);
  }
  return docs.join("\n---\n");
}

/** Hosts that reach every kind of entry: exact ones, wildcard-covered ones, and unknown ones (catch-all). */
export const SAMPLE_HOSTS = [
  ...Array.from({ length: 60 }, (_, h) => `h${h}.example`),
  "a.w0.example",
  "b.c.w1.example",
  "x.w2.example",
  "w1.example",
  "unknown.example",
];
