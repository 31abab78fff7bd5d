/**
 * @module The backendRefs of a route copy that is not served (it differs from the served copy, see
 * input/sameness.ts) and names a Service or XBackend its cluster lacks. Such a copy is not compiled, so its
 * references would go unchecked until the served copy goes away and it serves in its place, when its
 * cluster would have nothing to send them to. Checked here for existence alone, without compiling anything: a warning per
 * reference, on the copy, with the names that exist.
 */
import type { Manifest } from "../../gateway-api/manifest";
import { X_GROUP } from "../input/api-groups";
import { type BackendObjectReference, specOf } from "../input/typed-objects";
import { type BackendContext, notFoundText } from "../backends/targets";

export interface MissingRef {
  field: string;
  message: string;
}

/** The kind `ref` names if `cluster` lacks it (a Service or an XBackend of the copy's namespace), else undefined. */
function absentKind(ctx: BackendContext, copy: Manifest, ref: BackendObjectReference, namespace: string): string | undefined {
  const group = ref.group ?? "";
  const kind = ref.kind ?? "Service";
  if (group === "" && kind === "Service") return ctx.index.get(copy.cluster, "Service", namespace, ref.name) ? undefined : kind;
  // An XBackend of another namespace is refused whatever exists there (RefNotPermitted): not this check's.
  if (group === X_GROUP && kind === "XBackend" && namespace === copy.metadata.namespace)
    return ctx.xbackends.get(copy.cluster, namespace, ref.name) ? undefined : kind;
  return undefined;
}

/** The Services and XBackends `copy`'s rules name that its own cluster does not have. */
export function missingBackendsOfCopy(ctx: BackendContext, copy: Manifest): MissingRef[] {
  const missing: MissingRef[] = [];
  const where = `cluster ${copy.cluster}`;
  (specOf(copy, "HTTPRoute").rules ?? []).forEach((rule, r) =>
    (rule.backendRefs ?? []).forEach((ref, b) => {
      const namespace = ref.namespace ?? copy.metadata.namespace;
      const kind = absentKind(ctx, copy, ref, namespace);
      if (kind)
        missing.push({
          field: `spec.rules[${r}].backendRefs[${b}].name`,
          message: notFoundText(ctx, kind, namespace, ref.name, [copy.cluster], where),
        });
    }),
  );
  return missing;
}
