/**
 * @module The Gateway API kinds' schemas, from the pinned release (Gateway API v1.5, as packaged by
 * @kubernetes-models/gateway-api 2.0.0): its validators check types, enums, patterns and ranges; its field
 * names (gateway-api-fields.json, generated from the same package) catch unknown fields, which the
 * validators let through. The package predates Gateway API v1.7; what of v1.7 kedge reads is amended here:
 * - session persistence's v1.7 shape (`cookie{name, path, lifetimeType}`, `header{name}`, GEP-1619) on
 *   HTTPRoute rules and XBackendTrafficPolicy, added on top with its values checked (NEWER_FIELDS; the
 *   released `sessionName` and `cookieConfig` stay readable);
 * - `retry.attempts` may be 0 (v1.7: an explicit 0 turns retries off), which the v1.5 validator lets by
 *   unbounded; routes/retry.ts checks its range.
 * XBackend, whose v1.7 `sessionPersistence` kedge reads too, has kedge's own schema (kedge-schemas.ts).
 */
import { validate as backendTlsPolicySpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1BackendTLSPolicySpec";
import { validate as gatewayClassSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1GatewayClassSpec";
import { validate as gatewaySpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1GatewaySpec";
import { validate as grpcRouteSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1GRPCRouteSpec";
import { validate as httpRouteSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1HTTPRouteSpec";
import { validate as listenerSetSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1ListenerSetSpec";
import { validate as referenceGrantSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1ReferenceGrantSpec";
import { validate as tlsRouteSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1TLSRouteSpec";
import { validate as tcpRouteSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1alpha2TCPRouteSpec";
import { validate as tlsRouteAlphaSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1alpha2TLSRouteSpec";
import { validate as udpRouteSpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisV1alpha2UDPRouteSpec";
import { validate as backendTrafficPolicySpec } from "@kubernetes-models/gateway-api/_schemas/IoK8sSigsGatewayApiApisxV1alpha1BackendTrafficPolicySpec";
import FIELDS from "./gateway-api-fields.json";
import { SESSION_COOKIE, SESSION_HEADER } from "./kedge-schemas";
import { REASON } from "../../status/conditions";
import { any, type FieldPath, list, map, obj, opt, type Schema, type SchemaProblem, validate } from "../../../table/structural-schema";

/** The release whose schemas these are. */
export const GATEWAY_API_RELEASE = "v1.5";

/** One error as the package's (ajv standalone) validators report it. */
interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}
type SpecValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/** The spec validator of each kind (the Go types behind v1beta1, v1alpha2 and v1alpha3 are v1's where they exist). */
const SPEC_VALIDATORS: Record<string, SpecValidator> = {
  Gateway: gatewaySpec,
  GatewayClass: gatewayClassSpec,
  HTTPRoute: httpRouteSpec,
  GRPCRoute: grpcRouteSpec,
  ReferenceGrant: referenceGrantSpec,
  ListenerSet: listenerSetSpec,
  BackendTLSPolicy: backendTlsPolicySpec,
  "v1/TLSRoute": tlsRouteSpec,
  "v1alpha3/TLSRoute": tlsRouteSpec,
  "v1alpha2/TLSRoute": tlsRouteAlphaSpec,
  TCPRoute: tcpRouteSpec,
  UDPRoute: udpRouteSpec,
  XBackendTrafficPolicy: backendTrafficPolicySpec,
};

type FieldNode = 0 | 1 | { o: Record<string, FieldNode> } | { a: FieldNode } | { m: FieldNode };

/**
 * The field tree as a schema: objects closed (unknown fields found), every field optional and leaves left to
 * the package's validators (which know what is required, and each value's type).
 */
function toSchema(node: FieldNode): Schema {
  if (node === 0 || node === 1) return any();
  if ("a" in node) return list(toSchema(node.a));
  if ("m" in node) return map(toSchema(node.m));
  return obj(Object.fromEntries(Object.entries(node.o).map(([k, v]) => [k, opt(toSchema(v))])));
}

/** Session persistence as Gateway API v1.7 writes it (`cookie`, `header`): the same schema as kedge's own kinds'. */
const NEWER_SESSION_FIELDS = { cookie: opt(SESSION_COOKIE), header: opt(SESSION_HEADER) };

/** Adds `extra` fields to the object schema at `path` (a path of object fields and list items). */
function withFields(schema: Schema, path: string[], extra: Record<string, Schema>): Schema {
  if (schema.kind === "list") return { ...schema, items: withFields(schema.items, path, extra) };
  if (schema.kind !== "object") return schema;
  if (path.length === 0) return { ...schema, fields: { ...schema.fields, ...extra } };
  const [head, ...rest] = path as [string, ...string[]];
  const field = schema.fields[head];
  return field ? { ...schema, fields: { ...schema.fields, [head]: withFields(field, rest, extra) } } : schema;
}

const NEWER_FIELDS: Record<string, [string[], Record<string, Schema>][]> = {
  HTTPRoute: [[["rules", "sessionPersistence"], NEWER_SESSION_FIELDS]],
  XBackendTrafficPolicy: [[["sessionPersistence"], NEWER_SESSION_FIELDS]],
};

const schemas = new Map<string, Schema>();

/** The spec schema of a Gateway API kind at an API version (`group/version/Kind`), or undefined when kedge has none. */
function specSchema(apiVersion: string, kind: string): Schema | undefined {
  const key = `${apiVersion}/${kind}`;
  let schema = schemas.get(key);
  if (!schema) {
    const node = (FIELDS as Record<string, FieldNode>)[key];
    if (node === undefined) return undefined;
    schema = (NEWER_FIELDS[kind] ?? []).reduce((s, [path, extra]) => withFields(s, path, extra), toSchema(node));
    schemas.set(key, schema);
  }
  return schema;
}

/** The release's recurring patterns, said in words. */
const PATTERN_WORDS: Record<string, string> = {
  "^([0-9]{1,5}(h|m|s|ms)){1,4}$": "must be a duration like 500ms, 10s or 1m30s (GEP-2257)",
  "^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$":
    "must be a lower-case hostname, optionally starting with *.",
  "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$": "must be lower-case letters, digits, '-' and '.' (RFC 1123)",
  "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$": "must be a lower-case DNS label (letters, digits, '-')",
  "^[A-Za-z0-9!#$%&'*+\\-.^_\\x60|~]+$": "must be a header name (an RFC 7230 token: no spaces or separators)",
  "(^\\*$)|(^(http(s)?):\\/\\/(((\\*\\.)?([a-zA-Z0-9\\-]+\\.)*[a-zA-Z0-9-]+|\\*)(:([0-9]{1,5}))?)$)":
    "must be an origin like https://app.example.com, https://*.example.com, or *",
};

/** What an ajv error says, in a sentence. */
function errorText(e: AjvError): string {
  const p = e.params;
  switch (e.keyword) {
    case "type":
      return `must be ${p.type === "array" ? "a list" : p.type === "object" ? "a mapping" : `a${p.type === "integer" ? "n" : ""} ${String(p.type)}`}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).join(", ")}`;
    case "pattern":
      return PATTERN_WORDS[String(p.pattern)] ?? `must match ${String(p.pattern)}`;
    case "maximum":
    case "minimum":
    case "exclusiveMaximum":
    case "exclusiveMinimum":
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case "maxItems":
      return `must have at most ${String(p.limit)} items`;
    case "minItems":
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? "" : "s"}`;
    case "maxLength":
      return `must be at most ${String(p.limit)} characters`;
    case "minLength":
      return `must be at least ${String(p.limit)} character${p.limit === 1 ? "" : "s"}`;
    case "required":
      return "is required";
    case "format":
      return `must be a valid ${String(p.format)}`;
    default:
      return `fails the schema's ${e.keyword} rule`;
  }
}

/** `/rules/0/timeouts/request` below `spec` → ["spec", "rules", 0, "timeouts", "request"]. */
function pathOf(e: AjvError): FieldPath {
  const parts: (string | number)[] = ["spec"];
  for (const raw of e.instancePath.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    parts.push(/^\d+$/.test(part) ? Number(part) : part);
  }
  if (e.keyword === "required" && typeof e.params.missingProperty === "string") parts.push(e.params.missingProperty);
  return parts;
}

/**
 * Every problem of a Gateway API object's spec (`apiVersion` like `gateway.networking.k8s.io/v1`), or null
 * when kedge has no schema for that kind at that version (the kind is checked elsewhere).
 */
export function gatewayApiProblems(apiVersion: string, kind: string, spec: unknown): SchemaProblem[] | null {
  const schema = specSchema(apiVersion, kind);
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  const validator = SPEC_VALIDATORS[`${version}/${kind}`] ?? SPEC_VALIDATORS[kind];
  if (!schema || !validator) return null;
  const problems: SchemaProblem[] = [];
  validate(spec, schema, ["spec"], problems);
  if (!validator(spec)) {
    const seen = new Set<string>();
    for (const e of validator.errors ?? []) {
      const path = pathOf(e);
      const text = errorText(e);
      // The validators report a value once per schema branch it fails; one line each is enough.
      if (seen.has(`${path.join("/")} ${text}`)) continue;
      seen.add(`${path.join("/")} ${text}`);
      problems.push({ path, reason: REASON.UnsupportedValue, message: text });
    }
  }
  return problems;
}

/** The API versions kedge has schemas for, per Gateway API kind (for the "no such version" message). */
export const knownVersions = (kind: string): string[] =>
  Object.keys(FIELDS)
    .filter((key) => key.endsWith(`/${kind}`))
    .map((key) => key.slice(0, -kind.length - 1));
