import type { KvStore } from "./kv-store";
export declare function openLocalKv(persistTo: string, namespaceId: string): Promise<KvStore>;
