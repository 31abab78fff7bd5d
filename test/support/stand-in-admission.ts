/**
 * @module What the stand-in API server checks of an object it is asked to create or replace, as the real API
 * server's validation would refuse it (422 Invalid, one cause per field): the kinds `kedge manifests` prints
 * and the Lease of leader election. It is not the whole of Kubernetes' validation: it holds the fields a
 * mistake in kedge's output would get wrong (names, required fields, RBAC rules' shape, a Deployment's
 * selector, containers, probes and security context), so that `npm test` can apply the output here.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
/** RFC 1123 DNS subdomain, what most object names must be. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RFC 1123 label: a namespace, a container, a port name (IANA_SVC_NAME is stricter, ≤ 15). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** The verbs RBAC knows (and `*`). */
const VERBS = new Set(["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "*"]);
/** A resource in a rule: a plural, lower case, optionally with a subresource (`httproutes/status`), or `*`. */
const RESOURCE = /^(\*|[a-z][a-z0-9]*(\/[a-z]+)?)$/;

type Check = (o: Json, causes: string[]) => void;

function rules(o: Json, causes: string[]): void {
  if (!Array.isArray(o.rules)) return void causes.push("rules: Required value");
  o.rules.forEach((rule: unknown, i) => {
    const at = `rules[${i}]`;
    if (!isObject(rule)) return void causes.push(`${at}: Invalid value: not an object`);
    if (!strings(rule.verbs) || rule.verbs.length === 0) causes.push(`${at}.verbs: Required value: verbs must contain at least one value`);
    else for (const v of rule.verbs) if (!VERBS.has(v)) causes.push(`${at}.verbs: Unsupported value: ${JSON.stringify(v)}`);
    if (rule.nonResourceURLs !== undefined) return;
    if (!strings(rule.apiGroups) || rule.apiGroups.length === 0)
      causes.push(`${at}.apiGroups: Required value: resource rules must supply at least one api group`);
    if (!strings(rule.resources) || rule.resources.length === 0) causes.push(`${at}.resources: Required value`);
    else for (const r of rule.resources) if (!RESOURCE.test(r)) causes.push(`${at}.resources: Invalid value: ${JSON.stringify(r)}`);
    if (new Set(rule.resources as string[]).size !== (rule.resources as string[]).length) causes.push(`${at}.resources: Duplicate value`);
  });
}

function binding(o: Json, causes: string[]): void {
  const ref = o.roleRef;
  if (!isObject(ref) || ref.apiGroup !== "rbac.authorization.k8s.io" || !["Role", "ClusterRole"].includes(String(ref.kind)) || !ref.name)
    causes.push("roleRef: Invalid value: apiGroup rbac.authorization.k8s.io, kind Role or ClusterRole and a name are required");
  if (!Array.isArray(o.subjects) || o.subjects.length === 0) return void causes.push("subjects: Required value");
  o.subjects.forEach((s: unknown, i) => {
    if (!isObject(s) || !s.kind || !s.name) causes.push(`subjects[${i}]: Required value: kind and name`);
    else if (s.kind === "ServiceAccount" && !s.namespace) causes.push(`subjects[${i}].namespace: Required value`);
  });
}

function probe(p: unknown, at: string, ports: Set<string | number>, causes: string[]): void {
  if (p === undefined) return;
  if (!isObject(p) || !isObject(p.httpGet)) return void causes.push(`${at}.httpGet: Required value (the stand-in checks HTTP probes)`);
  const port = p.httpGet.port;
  if (typeof p.httpGet.path !== "string" || !p.httpGet.path.startsWith("/")) causes.push(`${at}.httpGet.path: Invalid value`);
  if (!(typeof port === "number" && port > 0 && port < 65536) && !(typeof port === "string" && ports.has(port)))
    causes.push(`${at}.httpGet.port: Invalid value: ${JSON.stringify(port)}: not a number nor a named port of the container`);
}

function container(c: unknown, at: string, volumes: Set<string>, causes: string[]): void {
  if (!isObject(c)) return void causes.push(`${at}: Invalid value`);
  if (typeof c.name !== "string" || !DNS_LABEL.test(c.name)) causes.push(`${at}.name: Invalid value: ${JSON.stringify(c.name)}`);
  if (typeof c.image !== "string" || c.image === "") causes.push(`${at}.image: Required value`);
  const ports = new Set<string | number>();
  for (const [i, p] of (Array.isArray(c.ports) ? c.ports : []).entries()) {
    if (!isObject(p) || typeof p.containerPort !== "number") causes.push(`${at}.ports[${i}].containerPort: Required value`);
    else if (typeof p.name === "string") {
      if (!DNS_LABEL.test(p.name) || p.name.length > 15) causes.push(`${at}.ports[${i}].name: Invalid value: ${p.name}`);
      ports.add(p.name);
    }
  }
  probe(c.livenessProbe, `${at}.livenessProbe`, ports, causes);
  probe(c.readinessProbe, `${at}.readinessProbe`, ports, causes);
  for (const [i, m] of (Array.isArray(c.volumeMounts) ? c.volumeMounts : []).entries())
    if (!isObject(m) || !volumes.has(String(m.name)) || typeof m.mountPath !== "string")
      causes.push(`${at}.volumeMounts[${i}].name: Not found: ${JSON.stringify(isObject(m) ? m.name : m)}`);
  for (const [i, e] of (Array.isArray(c.env) ? c.env : []).entries())
    if (!isObject(e) || typeof e.name !== "string" || (e.value === undefined && !isObject(e.valueFrom)))
      causes.push(`${at}.env[${i}]: Invalid value: a name and a value or valueFrom`);
  const sc = c.securityContext;
  if (sc !== undefined && (!isObject(sc) || (sc.readOnlyRootFilesystem !== undefined && typeof sc.readOnlyRootFilesystem !== "boolean")))
    causes.push(`${at}.securityContext: Invalid value`);
}

function deployment(o: Json, causes: string[]): void {
  const spec = isObject(o.spec) ? o.spec : {};
  const selector = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : undefined;
  if (!selector) causes.push("spec.selector: Required value");
  const template = isObject(spec.template) ? spec.template : {};
  const labels = isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : {};
  if (selector && Object.entries(selector).some(([k, v]) => labels[k] !== v))
    causes.push("spec.template.metadata.labels: Invalid value: `selector` does not match template `labels`");
  const pod = isObject(template.spec) ? template.spec : {};
  const volumes = new Set<string>();
  for (const [i, v] of (Array.isArray(pod.volumes) ? pod.volumes : []).entries()) {
    if (!isObject(v) || typeof v.name !== "string") causes.push(`spec.template.spec.volumes[${i}].name: Required value`);
    else volumes.add(v.name);
  }
  if (!Array.isArray(pod.containers) || pod.containers.length === 0) causes.push("spec.template.spec.containers: Required value");
  else pod.containers.forEach((c: unknown, i) => container(c, `spec.template.spec.containers[${i}]`, volumes, causes));
  const psc = pod.securityContext;
  if (psc !== undefined && (!isObject(psc) || (psc.runAsNonRoot !== undefined && typeof psc.runAsNonRoot !== "boolean")))
    causes.push("spec.template.spec.securityContext: Invalid value");
}

function lease(o: Json, causes: string[]): void {
  const spec = o.spec;
  if (spec === undefined) return;
  if (!isObject(spec)) return void causes.push("spec: Invalid value");
  const micro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
  for (const f of ["acquireTime", "renewTime"])
    if (spec[f] !== undefined && (typeof spec[f] !== "string" || !micro.test(spec[f])))
      causes.push(`spec.${f}: Invalid value: ${JSON.stringify(spec[f])}: a MicroTime (RFC 3339 with 6 fraction digits)`);
  for (const f of ["leaseDurationSeconds", "leaseTransitions"])
    if (spec[f] !== undefined && !(Number.isInteger(spec[f]) && (spec[f] as number) >= 0)) causes.push(`spec.${f}: Invalid value`);
  if (spec.leaseDurationSeconds === 0) causes.push("spec.leaseDurationSeconds: Invalid value: must be greater than 0");
}

const CHECKS: Record<string, Check> = {
  ClusterRole: rules,
  Role: rules,
  ClusterRoleBinding: binding,
  RoleBinding: binding,
  Deployment: deployment,
  Lease: lease,
};

/** Why the API server would refuse `o` as a `kind` (its apiVersion and kind as the collection's), or none. */
export function admissionProblems(kind: string, apiVersion: string, o: Json): string[] {
  const causes: string[] = [];
  if (o.kind !== undefined && o.kind !== kind) causes.push(`kind: Invalid value: ${JSON.stringify(o.kind)}, this collection holds ${kind}`);
  if (o.apiVersion !== undefined && o.apiVersion !== apiVersion) causes.push(`apiVersion: Invalid value: ${JSON.stringify(o.apiVersion)}`);
  const metadata = isObject(o.metadata) ? o.metadata : {};
  const name = metadata.name;
  const pattern = kind === "Namespace" ? DNS_LABEL : DNS_SUBDOMAIN;
  if (typeof name !== "string" || !pattern.test(name) || name.length > 253)
    causes.push(`metadata.name: Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 name`);
  for (const [key, value] of Object.entries(isObject(metadata.labels) ? metadata.labels : {}))
    if (typeof value !== "string") causes.push(`metadata.labels.${key}: Invalid value: not a string`);
  CHECKS[kind]?.(o, causes);
  return causes;
}
