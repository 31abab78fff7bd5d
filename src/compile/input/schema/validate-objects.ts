/**
 * @module The schema stage, before any translator runs: every object kedge reads is checked against its
 * schema (the Gateway API release's for its kinds, kedge's own for the seed kinds and the core kinds'
 * fields it reads). Each unknown field, wrong type or value out of range is an error naming the field
 * path and where it is (file:line:col); an object with any is left out, as the API server would refuse
 * it, and the rest of the config is served. What passes has the shape the translators expect.
 */
import type { CompileReport } from "../../status/compile-report";
import { apiGroup, isJsonObject, type Manifest } from "../../../gateway-api/manifest";
import { GATEWAY_GROUP, X_GROUP } from "../api-groups";
import { fails, REASON, resolved } from "../../status/conditions";
import type { Condition } from "../../status/diagnostics";
import { GATEWAY_API_RELEASE, gatewayApiProblems, knownVersions } from "./gateway-api";
import { kedgeSchemaOf } from "./kedge-schemas";
import { fieldPathText, type SchemaProblem, validate } from "../../../table/structural-schema";

const GATEWAY_API_GROUPS = new Set([GATEWAY_GROUP, X_GROUP]);
/** Route kinds: a refused one's status goes to each parent it names. */
const ROUTE_KINDS = new Set(["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"]);

/** The problems of one object, or [] when it passes (or kedge has no schema for it). */
export function objectProblems(m: Manifest): SchemaProblem[] {
  const own = kedgeSchemaOf(m.kind);
  if (own) {
    const problems: SchemaProblem[] = [];
    const value = own.part === "spec" ? m.raw.spec : m.raw;
    if (own.part === "spec" && value === undefined) return [{ path: ["spec"], reason: REASON.UnsupportedValue, message: "is required" }];
    validate(value, own.schema, own.part === "spec" ? ["spec"] : [], problems);
    return problems;
  }
  if (!GATEWAY_API_GROUPS.has(apiGroup(m.apiVersion))) return [];
  const problems = gatewayApiProblems(m.apiVersion, m.kind, m.raw.spec ?? {});
  if (problems) return problems;
  const versions = knownVersions(m.kind);
  return [
    {
      path: ["apiVersion"],
      reason: REASON.UnsupportedValue,
      message: `Gateway API ${GATEWAY_API_RELEASE} has no ${m.kind} at ${m.apiVersion}${versions.length ? ` (it has ${versions.join(", ")})` : ""}`,
    },
  ];
}

/** Whether a route's parentRef is another controller's Gateway (its status entry is not kedge's to write). */
export type OthersParent = (route: Manifest, parentRef: Record<string, unknown>) => boolean;

/** The status of a refused object: per parent of this edge for a route, else its own conditions. */
function reportRefused(m: Manifest, condition: Condition, report: CompileReport, othersParent: OthersParent): void {
  const parents =
    ROUTE_KINDS.has(m.kind) && Array.isArray(m.raw.spec && (m.raw.spec as { parentRefs?: unknown }).parentRefs)
      ? (m.raw.spec as { parentRefs: unknown[] }).parentRefs.filter(isJsonObject).filter((p) => !othersParent(m, p))
      : null;
  if (!parents || parents.length === 0) return report.setConditions(m, [condition]);
  report.noteParents(m);
  for (const p of parents) {
    const parentRef = {
      namespace: typeof p.namespace === "string" ? p.namespace : m.metadata.namespace,
      name: String(p.name),
      ...(typeof p.sectionName === "string" ? { sectionName: p.sectionName } : {}),
    };
    report.addParent(m, parentRef, [condition, resolved()]);
  }
}

/** Checks every object; returns those that pass (the status of each one left out goes to the book). */
export function validateObjects(manifests: Manifest[], report: CompileReport, othersParent: OthersParent = () => false): Manifest[] {
  const valid: Manifest[] = [];
  for (const m of manifests) {
    const problems = objectProblems(m);
    if (problems.length === 0) {
      valid.push(m);
      continue;
    }
    for (const p of problems) {
      const field = fieldPathText(p.path);
      // An unknown field as kubectl's strict field validation words it; a bad value says what it must be.
      const message = p.reason === REASON.UnknownField ? `unknown field "${field}"${p.message.slice("unknown field".length)}` : p.message;
      report.invalidObject(m, field, p.reason, `${message}; the ${ROUTE_KINDS.has(m.kind) ? "route" : "object"} is not served`);
    }
    const first = problems[0]!;
    const summary = `${fieldPathText(first.path)}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`;
    reportRefused(m, fails("Accepted", REASON.UnsupportedValue, `invalid object: ${summary}`), report, othersParent);
  }
  return valid;
}
