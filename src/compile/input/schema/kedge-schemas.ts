/**
 * @module kedge's own schemas: the seed kinds (CompositeBackend, XBackend as PR #4901 and its later
 * revision shape it, BackendLBPolicy as it was in the experimental channel), and the fields kedge reads of
 * the core kinds. The core kinds' other fields are the API server's business, so their objects stay open:
 * only the types of what kedge reads are checked. The stages read these objects as the TypeScript types in
 * ../typed-objects.ts, which follow these schemas: change both together.
 */
import { any, bool, int, list, obj, type Schema, str } from "../../../table/structural-schema";

const NAME = str({ maxLength: 253 });
const localRef = obj({ group: str(), kind: str(), name: NAME, namespace: str(), sectionName: str() }, { required: ["name"] });

/** Session persistence, in the released shape and the newer one (GEP-1619). */
export const SESSION_PERSISTENCE = obj({
  sessionName: str({ maxLength: 128 }),
  absoluteTimeout: str(),
  idleTimeout: str(),
  type: str({ enum: ["Cookie", "Header"] }),
  cookieConfig: obj({ lifetimeType: str({ enum: ["Session", "Permanent"] }) }),
  cookie: obj({ name: str({ maxLength: 128 }), path: str({ maxLength: 1024 }), lifetimeType: str({ enum: ["Session", "Permanent"] }) }),
  header: obj({ name: str({ maxLength: 128 }) }, { required: ["name"] }),
});

const PORT = int(1, 65535);

/** The spec of each kind kedge checks with its own schema, by kind. */
const SPECS: Record<string, Schema> = {
  CompositeBackend: obj(
    {
      targetRefs: list(obj({ group: str(), kind: str(), name: NAME, namespace: str() }, { required: ["kind", "name"] }), {
        min: 1,
        max: 16,
      }),
    },
    { required: ["targetRefs"] },
  ),
  XBackend: obj(
    {
      type: str({ enum: ["ExternalHostname"] }),
      externalHostname: obj({ hostname: str({ maxLength: 253 }) }, { required: ["hostname"] }),
      // `port.port` in the PR; `port.number` in its later revision; a name, empty or a DNS label, in both.
      port: obj({
        name: str({ maxLength: 63, pattern: /^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, hint: "empty or a DNS label" }),
        port: PORT,
        number: PORT,
      }),
      protocol: str({ enum: ["HTTP", "HTTP11", "HTTP2", "H2C", "TCP", "MCP"] }),
      tls: obj(
        {
          mode: str({ enum: ["None", "ServerOnly", "ClientAndServer"] }),
          clientCertificateRef: obj({ group: str(), kind: str(), name: NAME, namespace: str() }, { required: ["name"] }),
          validation: obj({
            caCertificateRefs: list(any()),
            wellKnownCACertificates: str(),
            hostname: str(),
            subjectAltNames: list(any()),
          }),
        },
        { required: ["mode"] },
      ),
    },
    { required: ["type"] },
  ),
  BackendLBPolicy: obj(
    { targetRefs: list(localRef, { min: 1, max: 16 }), sessionPersistence: SESSION_PERSISTENCE },
    { required: ["targetRefs"] },
  ),
  Service: obj(
    {
      ports: list(
        obj(
          { name: str(), port: PORT, protocol: str(), targetPort: any(), appProtocol: str(), nodePort: int() },
          { required: ["port"], open: true },
        ),
      ),
      type: str(),
    },
    { open: true },
  ),
};

/** Kinds whose data is at the top level, not under spec: checked whole (open, as the API server owns the rest). */
const OBJECTS: Record<string, Schema> = {
  EndpointSlice: obj(
    {
      addressType: str({ enum: ["IPv4", "IPv6", "FQDN"] }),
      ports: list(obj({ name: str(), port: PORT, protocol: str(), appProtocol: str() }, { open: true })),
      endpoints: list(
        obj(
          {
            addresses: list(str(), { min: 1 }),
            conditions: obj({ ready: bool(), serving: bool(), terminating: bool() }, { open: true }),
            zone: str(),
          },
          { required: ["addresses"], open: true },
        ),
      ),
    },
    { open: true },
  ),
};

/** kedge's schema for an object of `kind`: its spec's, or the whole object's; undefined when it has none. */
export function kedgeSchemaOf(kind: string): { part: "spec" | "object"; schema: Schema } | undefined {
  if (SPECS[kind]) return { part: "spec", schema: SPECS[kind] };
  if (OBJECTS[kind]) return { part: "object", schema: OBJECTS[kind] };
  return undefined;
}
