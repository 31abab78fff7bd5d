/** @module `--status-out DIR`: one YAML status block per object, as a Gateway API controller would write it. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { Condition, ResourceStatus } from "../../src/compile/status/diagnostics";
import { UserError } from "./user-error";

const CONTROLLER = "kedge.dev/edge";

/** Conditions as the API writes them; observedGeneration only when the object had a generation to observe. */
function conditions(list: Condition[], at: string, generation: number | undefined) {
  return list.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: at,
  }));
}

/** Writes `<dir>/<cluster>/<kind>-<namespace>-<name>.yaml` for every status; returns the files written. */
export function writeStatusFiles(dir: string, statuses: ResourceStatus[], now = new Date()): string[] {
  const at = now.toISOString().replace(/\.\d+Z$/, "Z");
  const files: string[] = [];
  for (const s of statuses) {
    const generation = s.object.generation;
    const status: Record<string, unknown> = {};
    if (s.ancestors) {
      // A policy's PolicyStatus, and an XBackend's status since the PR's review, name them ancestors.
      status.ancestors = s.ancestors.map((a) => ({
        ancestorRef: { group: "gateway.networking.k8s.io", kind: "Gateway", ...a.ancestorRef },
        controllerName: CONTROLLER,
        conditions: conditions(a.conditions, at, generation),
      }));
      // Used through no Gateway (yet): kedge's own verdict on the object is kept, not lost.
      if (s.ancestors.length === 0) status.conditions = conditions(s.conditions, at, generation);
    } else if (s.parents) {
      status.parents = s.parents.map((p) => ({
        parentRef: { group: "gateway.networking.k8s.io", kind: "Gateway", ...p.parentRef },
        controllerName: CONTROLLER,
        conditions: conditions(p.conditions, at, generation),
      }));
    } else {
      status.conditions = conditions(s.conditions, at, generation);
    }
    if (s.supportedFeatures) status.supportedFeatures = s.supportedFeatures.map((name) => ({ name }));
    if (s.attachedListenerSets !== undefined) status.attachedListenerSets = s.attachedListenerSets;
    if (s.listeners)
      status.listeners = s.listeners.map((l) => ({
        name: l.name,
        attachedRoutes: l.attachedRoutes,
        supportedKinds: [{ group: "gateway.networking.k8s.io", kind: "HTTPRoute" }],
        conditions: conditions(l.conditions, at, generation),
      }));
    const doc = {
      apiVersion: s.object.apiVersion ?? "gateway.networking.k8s.io/v1",
      kind: s.object.kind,
      metadata: { name: s.object.name, namespace: s.object.namespace },
      status,
    };
    const folder = join(dir, s.object.cluster);
    const file = join(folder, `${s.object.kind.toLowerCase()}-${s.object.namespace}-${s.object.name}.yaml`);
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, stringify(doc));
    } catch (error) {
      // Written before the table: a folder that cannot take them stops the sync with nothing pushed.
      throw new UserError(
        `--status-out: cannot write ${file}: ${(error as Error).message}`,
        "pass --status-out a folder you can write; the table was not written",
      );
    }
    files.push(file);
  }
  return files;
}
