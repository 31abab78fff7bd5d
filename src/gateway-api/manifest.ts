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

/**
 * The spec of an object whose compile is done, when its caller said it reads the objects no more (a one-shot
 * command: CompileOptions.once): one shared, empty object that throws when a field is read or asked for (`in`),
 * so a stage that reads a spec after it was let go fails loudly in the tests instead of compiling nothing from
 * it. What every object answers (`constructor`, `toJSON`, symbols) and its list of keys (empty) stay as `{}`'s:
 * printing or comparing a manifest, as a failed assertion does, must not throw.
 */
const spentRead = (key: string) => new Error(`kedge bug: a spec was read (${key}) after its compile let it go`);
const answersAsEmpty = (key: string | symbol) => typeof key === "symbol" || key in Object.prototype || key === "toJSON" || key === "then";
export const SPENT: JsonObject = new Proxy(Object.freeze({}), {
  get(target, key) {
    if (answersAsEmpty(key)) return Reflect.get(target, key);
    throw spentRead(String(key));
  },
  has(target, key) {
    if (answersAsEmpty(key)) return Reflect.has(target, key);
    throw spentRead(String(key));
  },
});

/** Lets go of the spec of an object the compile is done with: SPENT. */
export function letGoOfSpec(m: Manifest): void {
  m.spec = SPENT;
  if (m.raw.spec !== undefined) m.raw.spec = SPENT;
}

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The API group of an apiVersion ("" for the core group). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? "" : apiVersion.slice(0, slash);
}
