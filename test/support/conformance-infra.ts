/**
 * @module The Gateway API conformance fixture, read from test/fixtures/compile/conformance/: base.yaml
 * (Gateway `same-namespace`, one HTTP listener on port 80 and no hostname; Services infra-backend-v1..v3)
 * and each case's manifests, which the golden compile test also compiles on that base. Tests that send
 * requests put their loopback origins' ports into the base's EndpointSlices.
 */
import { parseAllDocuments } from "yaml";

const FILES = import.meta.glob<string>("../fixtures/compile/conformance/*.yaml", { query: "?raw", import: "default", eager: true });

function fixture(name: string): string {
  const text = FILES[`../fixtures/compile/conformance/${name}`];
  if (text === undefined) throw new Error(`no conformance fixture ${name}`);
  return text;
}

const [EDGE_DOC, ...INFRA_DOCS] = parseAllDocuments(fixture("base.yaml"));

/** The base's EdgeConfig: one cluster, c1. */
export const EDGE_YAML = EDGE_DOC!.toString();

/** Backend name → loopback port of its origin. */
export type BackendPorts = Record<"v1" | "v2" | "v3", number>;

/** The base's resources (all but the EdgeConfig), each infra-backend's EndpointSlice on its origin's port. */
export function infraYaml(ports: BackendPorts): string {
  return INFRA_DOCS.map((doc) => {
    const copy = doc.clone();
    const service = copy.getIn(["metadata", "labels", "kubernetes.io/service-name"]);
    const version =
      typeof service === "string" ? (/^infra-backend-(v[123])$/.exec(service)?.[1] as keyof BackendPorts | undefined) : undefined;
    if (version) copy.setIn(["ports", 0, "port"], ports[version]);
    return copy.toString();
  }).join("---\n");
}

/**
 * The manifests of one conformance case (test/fixtures/compile/conformance/<name>.in.yaml), on a line of
 * their own, so that they can follow a `---` as the other manifest builders' text does.
 */
export const conformanceManifest = (name: string): string => `\n${fixture(`${name}.in.yaml`)}`;

/** An HTTPRoute attached to the conformance Gateway, with `rules` (YAML items indented by 4 spaces). */
export const infraRoute = (rules: string, name = "r"): string => `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: gateway-conformance-infra }
spec:
  parentRefs: [{ name: same-namespace }]
  rules:
${rules}`;
