/** @module `--status-out DIR`: one YAML status block per object, as a Gateway API controller would write it. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { ResourceStatus } from "../../src/compile/status/diagnostics";
import { statusDocument, transitionTime } from "../kube/status/document";
import { UserError } from "../lib/user-error";

/** Writes `<dir>/<cluster>/<kind>-<namespace>-<name>.yaml` for every status; returns the files written. */
export function writeStatusFiles(dir: string, statuses: ResourceStatus[], controller?: string, now = new Date()): string[] {
  const at = transitionTime(now);
  const files: string[] = [];
  for (const s of statuses) {
    const doc = {
      apiVersion: s.object.apiVersion ?? "gateway.networking.k8s.io/v1",
      kind: s.object.kind,
      metadata: { name: s.object.name, namespace: s.object.namespace },
      // A file shows what is set: the nulls a merge patch uses to remove a field have no meaning here.
      status: Object.fromEntries(Object.entries(statusDocument(s, at, {}, controller)).filter(([, value]) => value !== null)),
    };
    const folder = join(dir, s.object.cluster);
    const file = join(folder, `${s.object.kind.toLowerCase()}-${s.object.namespace}-${s.object.name}.yaml`);
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, stringify(doc, { aliasDuplicateObjects: false }));
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
