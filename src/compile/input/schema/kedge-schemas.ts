/**
 * @module kedge's own kinds, each stated once as a type and the schema written against it: the seed kinds
 * (CompositeBackend, XBackend as PR #4901 and its later revision shape it, with the `sessionPersistence`
 * Gateway API v1.7 gives it (GEP-4894, PR #4876), BackendLBPolicy as it was in the experimental channel),
 * session persistence's v1.7 `cookie` and `header` settings (which schema/gateway-api.ts adds to the v1.5
 * kinds too), and the fields kedge reads of the core kinds (Service, EndpointSlice). The core kinds'
 * other fields are the API server's business, so their objects stay open: only the types of what kedge reads
 * are checked. The stages read these objects as these types (typed-objects.ts re-exports them); a field added
 * to a type and not to its schema, or the reverse, fails `tsc`.
 */
import type { IIoK8sSigsGatewayApiApisV1SessionPersistence } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/SessionPersistence";
import { any, bool, int, list, literal, obj, opt, type Schema, str } from "../../../table/structural-schema";

/** A reference to an object: its group and kind default per field, its namespace to the referrer's. */
export interface ObjectReference {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
}
export interface CompositeBackendSpec {
  targetRefs: (ObjectReference & { kind: string })[];
}
export type XBackendProtocol = "HTTP" | "HTTP11" | "HTTP2" | "H2C" | "TCP" | "MCP";
export interface XBackendSpec {
  type: "ExternalHostname";
  externalHostname?: { hostname: string };
  /** `port.port` in the PR; `port.number` in its later revision; the name is only a label. */
  port?: { name?: string; port?: number; number?: number };
  protocol?: XBackendProtocol;
  tls?: {
    mode: "None" | "ServerOnly" | "ClientAndServer";
    clientCertificateRef?: ObjectReference;
    validation?: { caCertificateRefs?: unknown[]; wellKnownCACertificates?: string; hostname?: string; subjectAltNames?: unknown[] };
  };
  /** Gateway API v1.7: the backend's own session persistence, for every route that sends to it. */
  sessionPersistence?: SessionPersistenceSpec;
}
type Lifetime = "Session" | "Permanent";
/** v1.7's cookie settings (PR #4873: `sessionName` became `cookie.name`, `cookieConfig` became `cookie`). */
export interface SessionCookie {
  name?: string;
  path?: string;
  lifetimeType?: Lifetime;
}
/** v1.7's header settings: the header's name is required. */
export interface SessionHeader {
  name: string;
}
/** Session persistence, in the released shape (v1.1-v1.5, with `idleTimeout`) and v1.7's (GEP-1619). */
export type SessionPersistenceSpec = IIoK8sSigsGatewayApiApisV1SessionPersistence & {
  cookie?: SessionCookie;
  header?: SessionHeader;
};
export interface BackendLBPolicySpec {
  targetRefs: (ObjectReference & { sectionName?: string })[];
  sessionPersistence?: SessionPersistenceSpec;
}
/** The core kinds stay open: the API server owns their other fields. */
export interface ServiceSpec {
  ports?: { name?: string; port: number; protocol?: string; targetPort?: unknown; appProtocol?: string; nodePort?: number }[];
  type?: string;
  [field: string]: unknown;
}
export interface EndpointSlice {
  addressType?: "IPv4" | "IPv6" | "FQDN";
  ports?: { name?: string; port?: number; protocol?: string; appProtocol?: string; [field: string]: unknown }[];
  endpoints?: {
    /** At least one. */
    addresses: [string, ...string[]];
    conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean; [field: string]: unknown };
    zone?: string;
    [field: string]: unknown;
  }[];
  [field: string]: unknown;
}

const NAME = str({ maxLength: 253 });
const PORT = int(1, 65535);
const LIFETIME = str({ enum: ["Session", "Permanent"] });

export const SESSION_COOKIE = obj<SessionCookie>({
  name: opt(str({ maxLength: 128 })),
  path: opt(str({ maxLength: 1024 })),
  lifetimeType: opt(LIFETIME),
});
export const SESSION_HEADER = obj<SessionHeader>({ name: str({ maxLength: 128 }) });

export const SESSION_PERSISTENCE = obj<SessionPersistenceSpec>({
  sessionName: opt(str({ maxLength: 128 })),
  absoluteTimeout: opt(str()),
  idleTimeout: opt(str()),
  type: opt(str({ enum: ["Cookie", "Header"] })),
  cookieConfig: opt(obj({ lifetimeType: opt(LIFETIME) })),
  cookie: opt(SESSION_COOKIE),
  header: opt(SESSION_HEADER),
});

const COMPOSITE_BACKEND = obj<CompositeBackendSpec>({
  targetRefs: list(obj({ group: opt(str()), kind: str(), name: NAME, namespace: opt(str()) }), { min: 1, max: 16 }),
});

const XBACKEND = obj<XBackendSpec>({
  type: literal("ExternalHostname"),
  externalHostname: opt(obj({ hostname: str({ maxLength: 253 }) })),
  // `port.port` in the PR; `port.number` in its later revision; a name, empty or a DNS label, in both.
  port: opt(
    obj({
      name: opt(str({ maxLength: 63, pattern: /^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, hint: "empty or a DNS label" })),
      port: opt(PORT),
      number: opt(PORT),
    }),
  ),
  protocol: opt(str({ enum: ["HTTP", "HTTP11", "HTTP2", "H2C", "TCP", "MCP"] })),
  tls: opt(
    obj({
      mode: str({ enum: ["None", "ServerOnly", "ClientAndServer"] }),
      clientCertificateRef: opt(obj({ group: opt(str()), kind: opt(str()), name: NAME, namespace: opt(str()) })),
      validation: opt(
        obj({
          caCertificateRefs: opt(list(any())),
          wellKnownCACertificates: opt(str()),
          hostname: opt(str()),
          subjectAltNames: opt(list(any())),
        }),
      ),
    }),
  ),
  sessionPersistence: opt(SESSION_PERSISTENCE),
});

const BACKEND_LB_POLICY = obj<BackendLBPolicySpec>({
  targetRefs: list(obj({ group: opt(str()), kind: opt(str()), name: NAME, namespace: opt(str()), sectionName: opt(str()) }), {
    min: 1,
    max: 16,
  }),
  sessionPersistence: opt(SESSION_PERSISTENCE),
});

const SERVICE = obj<ServiceSpec>(
  {
    ports: opt(
      list(
        obj(
          {
            name: opt(str()),
            port: PORT,
            protocol: opt(str()),
            targetPort: opt(any()),
            appProtocol: opt(str()),
            nodePort: opt(int()),
          },
          { open: true },
        ),
      ),
    ),
    type: opt(str()),
  },
  { open: true },
);

const ENDPOINT_SLICE = obj<EndpointSlice>(
  {
    addressType: opt(str({ enum: ["IPv4", "IPv6", "FQDN"] })),
    ports: opt(list(obj({ name: opt(str()), port: opt(PORT), protocol: opt(str()), appProtocol: opt(str()) }, { open: true }))),
    endpoints: opt(
      list(
        obj(
          {
            addresses: list(str(), { min: 1 }),
            conditions: opt(obj({ ready: opt(bool()), serving: opt(bool()), terminating: opt(bool()) }, { open: true })),
            zone: opt(str()),
          },
          { open: true },
        ),
      ),
    ),
  },
  { open: true },
);

/** The spec of each kind kedge checks with its own schema, by kind. */
const SPECS: Record<string, Schema> = {
  CompositeBackend: COMPOSITE_BACKEND,
  XBackend: XBACKEND,
  BackendLBPolicy: BACKEND_LB_POLICY,
  Service: SERVICE,
};

/** Kinds whose data is at the top level, not under spec: checked whole (open, as the API server owns the rest). */
const OBJECTS: Record<string, Schema> = { EndpointSlice: ENDPOINT_SLICE };

/** kedge's schema for an object of `kind`: its spec's, or the whole object's; undefined when it has none. */
export function kedgeSchemaOf(kind: string): { part: "spec" | "object"; schema: Schema } | undefined {
  if (SPECS[kind]) return { part: "spec", schema: SPECS[kind] };
  if (OBJECTS[kind]) return { part: "object", schema: OBJECTS[kind] };
  return undefined;
}
