import type { KvStore } from "./kv-store";
export declare function openRemoteKv(namespaceId: string, wranglerConfig: string): KvStore;
