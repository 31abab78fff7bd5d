export declare const EDGE_API_VERSION = "kedge.dev/v1alpha1";
/** How the edge reaches a cluster's endpoints (DESIGN.md §3). */
export type EndpointSource =
  | {
      from: "EndpointSlice";
      scheme: "http" | "https";
    }
  | {
      from: "LoadBalancer";
      scheme: "http" | "https";
    }
  | {
      from: "Hostname";
      scheme: "http" | "https";
      hostnameTemplate: string;
      port?: number;
    };
export interface ClusterSettings {
  name: string;
  region?: string;
  /** Relative capacity: every endpoint of this cluster weighs this much. */
  weight: number;
  endpoints: EndpointSource;
}
export interface EdgeConfig {
  /** The table name; the KV keys are `table/<name>/...`. */
  name: string;
  gatewayClassName: string;
  clusters: ClusterSettings[];
}
/** The edge settings cannot be used; the message says which field and how to fix it. */
export declare class EdgeConfigError extends Error {
  name: string;
}
/** Validates the parsed edge settings document. */
export declare function parseEdgeConfig(raw: unknown, file: string): EdgeConfig;
