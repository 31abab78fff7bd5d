/** @module A Kubernetes object as read from a cluster folder, with where it came from. */
import type { Locate } from "./locate";

export type JsonObject = Record<string, unknown>;

export interface ObjectMeta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  creationTimestamp?: string;
  /** metadata.generation when the object came from a cluster (kubectl output); hand-written YAML has none. */
  generation?: number;
}

/**
 * One object of one cluster. `spec` and `status` stay loose as read: once the schema stage has passed an
 * object, src/compile/input/typed-objects.ts gives its spec its kind's type (`status` is not checked).
 */
export interface Manifest {
  cluster: string;
  file: string;
  line: number;
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: JsonObject;
  status: JsonObject;
  /** The whole object (EndpointSlice keeps its data at the top level, not under spec). */
  raw: JsonObject;
  /** Where a field of this object is in its file; absent for objects built in code. */
  locate?: Locate;
}

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The API group of an apiVersion ("" for the core group). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? "" : apiVersion.slice(0, slash);
}
