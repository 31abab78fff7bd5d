/**
 * @module The failover scenario of test/fixtures/compile/failover.in.yaml, for the set-ups that serve it
 * on loopback origins (the end-to-end failover test, `npm run fault`): the manifests every cluster gets,
 * byte for byte, and the EndpointSlices a cluster's origins need. The golden compile test compiles the
 * same file, so the scenario is written once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

const FILE = join(import.meta.dirname, "..", "fixtures", "compile", "failover.in.yaml");
const TEXT = readFileSync(FILE, "utf8");

const DOCS = parseAllDocuments(TEXT);
const sourceOf = (doc: (typeof DOCS)[number]) => `${TEXT.slice(doc.contents!.range[0], doc.contents!.range[2]).trimEnd()}\n`;

/** The scenario's kedge.yaml: table `failover` over clusters east, west and south. */
export const FAILOVER_EDGE = sourceOf(DOCS[0]!);

/**
 * What a platform team applies to every cluster, as the file writes it: the Gateway, the route and the
 * Service (annotated for every cluster of the golden test), not the EdgeConfig or the endpoints.
 */
export const FAILOVER_SHARED = DOCS.filter((doc) => !["EdgeConfig", "EndpointSlice"].includes(String(doc.get("kind"))))
  .map(sourceOf)
  .join("---\n");

/** The scenario's Service, served by `ports` on 127.0.0.1: one EndpointSlice per port (web-0, web-1, …). */
export function failoverSlices(ports: readonly number[]): string {
  return ports
    .map(
      (port, i) => `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: web-${i}, namespace: shop, labels: { kubernetes.io/service-name: web } }
addressType: IPv4
ports: [{ name: http, port: ${port} }]
endpoints: [{ addresses: ["127.0.0.1"] }]
`,
    )
    .join("---\n");
}
