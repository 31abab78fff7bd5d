/**
 * @module The backendRefs of a route copy that is not served (it differs from the served copy, see
 * input/sameness.ts) and names a Service or XBackend its cluster lacks. Such a copy is not compiled, so its
 * references would go unchecked until the served copy goes away and it serves in its place, when its
 * cluster would have nothing to send them to. Checked here for existence alone, without compiling anything: a warning per
 * reference, on the copy, with the names that exist.
 */
import type { Manifest } from "../../gateway-api/manifest";
import { suggestion } from "../../table/did-you-mean";
import { X_GROUP } from "../input/api-groups";
import { specOf } from "../input/typed-objects";
import type { BackendContext } from "../backends/targets";

export interface MissingRef {
  field: string;
  message: string;
}

/** The Services and XBackends `copy`'s rules name that its own cluster does not have. */
export function missingBackendsOfCopy(ctx: BackendContext, copy: Manifest): MissingRef[] {
  const missing: MissingRef[] = [];
  const cluster = copy.cluster;
  (specOf(copy, "HTTPRoute").rules ?? []).forEach((rule, r) =>
    (rule.backendRefs ?? []).forEach((ref, b) => {
      const namespace = ref.namespace ?? copy.metadata.namespace;
      const group = ref.group ?? "";
      const kind = ref.kind ?? "Service";
      const field = `spec.rules[${r}].backendRefs[${b}].name`;
      if (group === "" && kind === "Service" && !ctx.index.get(cluster, "Service", namespace, ref.name))
        missing.push({
          field,
          message: `Service ${namespace}/${ref.name} not found in cluster ${cluster}${suggestion(ref.name, ctx.index.namesIn([cluster], "Service", namespace), `Services in namespace ${namespace}`)}`,
        });
      // An XBackend of another namespace is refused whatever exists there (RefNotPermitted): not this check's.
      else if (
        group === X_GROUP &&
        kind === "XBackend" &&
        namespace === copy.metadata.namespace &&
        !ctx.xbackends.get(cluster, namespace, ref.name)
      )
        missing.push({ field, message: `XBackend ${namespace}/${ref.name} not found in cluster ${cluster}` });
    }),
  );
  return missing;
}
