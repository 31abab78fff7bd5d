export declare const ROUTES_BINDING = "ROUTES";
export interface WranglerFacts {
  kvNamespaceId: string;
}
export declare function readWranglerFacts(configPath: string): WranglerFacts;
