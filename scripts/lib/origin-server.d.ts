export interface OriginIdentity {
  cluster: string;
  endpoint: string;
  /** The backends (Services) this endpoint serves, for humans reading the answer. */
  backends: string[];
}
/** What an origin answers with (JSON body). */
export interface EchoResponse extends OriginIdentity {
  request: {
    method: string;
    path: string;
    query: string;
    headers: Record<string, string>;
    bodyBytes: number;
  };
}
export interface Origin {
  identity: OriginIdentity;
  port: number;
  /** Requests served so far. */
  count(): number;
  close(): Promise<void>;
}
export declare function startOrigin(identity: OriginIdentity, port?: number, host?: string): Promise<Origin>;
