/**
 * @module The API server's answers, as kedge reads them: an object, a list of them, a watch event, the discovery
 * documents and a Status. Each is stated once as a type with its schema, open (the server says more than kedge
 * reads), and checked where it arrives (lib/json.ts), so a proxy's HTML page or a truncated answer is said as
 * such rather than read as an empty list.
 */
import { bool, int, list, obj, opt, str } from "../../src/table/structural-schema";

/** An object's metadata, the fields kedge reads. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  [field: string]: unknown;
}
/** Any object of any kind: its metadata typed, the rest as it came. */
export interface KubeObject {
  metadata?: ObjectMeta;
  [field: string]: unknown;
}
const META = obj<ObjectMeta>({ name: opt(str()), namespace: opt(str()), resourceVersion: opt(str()) }, { open: true });
export const KUBE_OBJECT = obj<KubeObject>({ metadata: opt(META) }, { open: true });

/** A List (`GET` of a collection): its items and where a watch resumes, or the next page starts. */
export interface ObjectList {
  metadata?: { resourceVersion?: string; continue?: string; [field: string]: unknown };
  items?: KubeObject[];
  [field: string]: unknown;
}
export const OBJECT_LIST = obj<ObjectList>(
  {
    metadata: opt(obj({ resourceVersion: opt(str()), continue: opt(str()) }, { open: true })),
    items: opt(list(KUBE_OBJECT)),
  },
  { open: true },
);

/** One line of a watch stream. An ERROR event's object is a Status (its `code`, 410 when compacted away). */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject & { code?: number };
}
export const WATCH_EVENT = obj<WatchEvent>({
  type: str({ enum: ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"] }),
  object: obj({ metadata: opt(META), code: opt(int()) }, { open: true }),
});

/** `GET /api/v1` or `/apis/<group>/<version>`: the resources served there. */
export interface ApiResourceList {
  resources?: { name: string; kind: string; namespaced?: boolean; [field: string]: unknown }[];
  [field: string]: unknown;
}
export const API_RESOURCE_LIST = obj<ApiResourceList>(
  { resources: opt(list(obj({ name: str(), kind: str(), namespaced: opt(bool()) }, { open: true }))) },
  { open: true },
);

/** `GET /apis`: the groups served, each with its preferred version. */
export interface ApiGroupList {
  groups?: { name: string; preferredVersion?: { version: string; [field: string]: unknown }; [field: string]: unknown }[];
  [field: string]: unknown;
}
export const API_GROUP_LIST = obj<ApiGroupList>(
  { groups: opt(list(obj({ name: str(), preferredVersion: opt(obj({ version: str() }, { open: true })) }, { open: true }))) },
  { open: true },
);

/** A Status, the API's error answer. */
export const STATUS = obj<{ message?: string; [field: string]: unknown }>({ message: opt(str()) }, { open: true });

/** An object read for its status: its spec and status as they are. */
export interface StatusHolder {
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}
export const STATUS_HOLDER = obj<StatusHolder>(
  { metadata: opt(META), spec: opt(obj({}, { open: true })), status: opt(obj({}, { open: true })) },
  { open: true },
);
