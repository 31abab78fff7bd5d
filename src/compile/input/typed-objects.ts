/**
 * @module The objects the stages read, typed. An object reaches a stage after the schema stage only when it
 * passed its kind's schema (schema/validate-objects.ts), so its spec has its kind's type: for the Gateway
 * API kinds, @kubernetes-models/gateway-api's (the same release as the schemas; type-only imports, so
 * nothing of the package is bundled), for the seed and core kinds, the types kedge's own schemas are written
 * against (schema/kedge-schemas.ts, where `tsc` keeps each type and its schema in step). The package's types are amended where its validators
 * let through more than they say:
 * - an optional scalar of an inline type may be null (YAML `weight:` with no value), though the type says
 *   only `number`; the fields kedge reads that can be are `| null` here (OrNull);
 * - Gateway API v1.7's session persistence fields (`cookie`, `header`), which the package predates: the schema
 *   stage checks them against kedge's schema of them (NEWER_FIELDS in schema/gateway-api.ts), so they have
 *   that schema's types (schema/kedge-schemas.ts).
 * `specOf` is the one place a Manifest's loose spec becomes its kind's type.
 */
import type { IIoK8sSigsGatewayApiApisV1BackendTLSPolicySpec as PackageBackendTLSPolicySpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/BackendTLSPolicySpec";
import type { IIoK8sSigsGatewayApiApisV1CommonRouteSpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/CommonRouteSpec";
import type { IIoK8sSigsGatewayApiApisV1Fraction } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/Fraction";
import type { IIoK8sSigsGatewayApiApisV1GatewaySpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/GatewaySpec";
import type { IIoK8sSigsGatewayApiApisV1GatewaySpecAddress } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/GatewaySpecAddress";
import type { IIoK8sSigsGatewayApiApisV1HTTPBackendRef } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPBackendRef";
import type { IIoK8sSigsGatewayApiApisV1HTTPCORSFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPCORSFilter";
import type { IIoK8sSigsGatewayApiApisV1HTTPHeaderFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPHeaderFilter";
import type { IIoK8sSigsGatewayApiApisV1HTTPPathMatch } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPPathMatch";
import type { IIoK8sSigsGatewayApiApisV1HTTPPathModifier } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPPathModifier";
import type { IIoK8sSigsGatewayApiApisV1HTTPRequestMirrorFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRequestMirrorFilter";
import type { IIoK8sSigsGatewayApiApisV1HTTPRequestRedirectFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRequestRedirectFilter";
import type { IIoK8sSigsGatewayApiApisV1HTTPRouteFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRouteFilter";
import type { IIoK8sSigsGatewayApiApisV1HTTPRouteMatch } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRouteMatch";
import type { IIoK8sSigsGatewayApiApisV1HTTPRouteRetry } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRouteRetry";
import type { IIoK8sSigsGatewayApiApisV1HTTPRouteRule } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRouteRule";
import type { IIoK8sSigsGatewayApiApisV1HTTPRouteSpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRouteSpec";
import type { IIoK8sSigsGatewayApiApisV1HTTPURLRewriteFilter } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPURLRewriteFilter";
import type { IIoK8sSigsGatewayApiApisV1Listener } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/Listener";
import type { IIoK8sSigsGatewayApiApisV1ListenerSetSpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/ListenerSetSpec";
import type { IIoK8sSigsGatewayApiApisV1ParentReference } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/ParentReference";
import type { IIoK8sSigsGatewayApiApisV1ReferenceGrantSpec } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/ReferenceGrantSpec";
import type { IIoK8sSigsGatewayApiApisV1RouteNamespaces } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/RouteNamespaces";
import type { IIoK8sSigsGatewayApiApisV1SessionPersistence } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/SessionPersistence";
import type { IIoK8sSigsGatewayApiApisV1TLSConfig } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/TLSConfig";
import type { IIoK8sSigsGatewayApiApisxV1alpha1BackendTrafficPolicySpec } from "@kubernetes-models/gateway-api/gateway.networking.x-k8s.io/v1alpha1/BackendTrafficPolicySpec";
import type { IIoK8sSigsGatewayApiApisxV1alpha1BudgetDetails } from "@kubernetes-models/gateway-api/gateway.networking.x-k8s.io/v1alpha1/BudgetDetails";
import type { IIoK8sSigsGatewayApiApisxV1alpha1RequestRate } from "@kubernetes-models/gateway-api/gateway.networking.x-k8s.io/v1alpha1/RequestRate";
import type { Manifest } from "../../gateway-api/manifest";
import type {
  BackendLBPolicySpec,
  CompositeBackendSpec,
  EndpointSlice,
  ServiceSpec,
  SessionCookie,
  SessionHeader,
  XBackendProtocol,
  XBackendSpec,
} from "./schema/kedge-schemas";

/** `T` whose optional scalars `K` may also be null: the package's validators let null through there. */
type OrNull<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | null };

// HTTPRoute, from its leaves up.
export type HTTPPathMatch = OrNull<IIoK8sSigsGatewayApiApisV1HTTPPathMatch, "value">;
export type HTTPRouteMatch = Omit<IIoK8sSigsGatewayApiApisV1HTTPRouteMatch, "path"> & { path?: HTTPPathMatch };
export type HTTPHeaderFilter = IIoK8sSigsGatewayApiApisV1HTTPHeaderFilter;
export type HTTPPathModifier = OrNull<IIoK8sSigsGatewayApiApisV1HTTPPathModifier, "replaceFullPath" | "replacePrefixMatch">;
export type HTTPRequestRedirectFilter = Omit<IIoK8sSigsGatewayApiApisV1HTTPRequestRedirectFilter, "path"> & { path?: HTTPPathModifier };
export type HTTPURLRewriteFilter = Omit<IIoK8sSigsGatewayApiApisV1HTTPURLRewriteFilter, "path"> & { path?: HTTPPathModifier };
export type HTTPRequestMirrorFilter = Omit<OrNull<IIoK8sSigsGatewayApiApisV1HTTPRequestMirrorFilter, "percent">, "fraction"> & {
  fraction?: OrNull<IIoK8sSigsGatewayApiApisV1Fraction, "denominator">;
};
export type HTTPCORSFilter = OrNull<IIoK8sSigsGatewayApiApisV1HTTPCORSFilter, "allowCredentials" | "maxAge">;
export type HTTPRouteFilter = Omit<
  IIoK8sSigsGatewayApiApisV1HTTPRouteFilter,
  "requestRedirect" | "urlRewrite" | "requestMirror" | "cors"
> & {
  requestRedirect?: HTTPRequestRedirectFilter;
  urlRewrite?: HTTPURLRewriteFilter;
  requestMirror?: HTTPRequestMirrorFilter;
  cors?: HTTPCORSFilter;
};
/** What a backendRef or a RequestMirror names: a BackendObjectReference. */
export type BackendObjectReference = HTTPRequestMirrorFilter["backendRef"];
export type HTTPBackendRef = Omit<OrNull<IIoK8sSigsGatewayApiApisV1HTTPBackendRef, "weight">, "filters"> & { filters?: HTTPRouteFilter[] };
export type HTTPRouteRetry = OrNull<IIoK8sSigsGatewayApiApisV1HTTPRouteRetry, "attempts">;

/**
 * Session persistence as kedge reads it (GEP-1619), wherever it is written (a route rule, a policy, an
 * XBackend): the released fields, and v1.7's `cookie` and `header`.
 */
export type SessionPersistence = OrNull<IIoK8sSigsGatewayApiApisV1SessionPersistence, "sessionName"> & {
  cookie?: SessionCookie;
  header?: SessionHeader;
};

export type HTTPRouteRule = Omit<
  IIoK8sSigsGatewayApiApisV1HTTPRouteRule,
  "matches" | "filters" | "backendRefs" | "retry" | "sessionPersistence"
> & {
  matches?: HTTPRouteMatch[];
  filters?: HTTPRouteFilter[];
  backendRefs?: HTTPBackendRef[];
  retry?: HTTPRouteRetry;
  sessionPersistence?: SessionPersistence;
};
export type HTTPRouteSpec = Omit<IIoK8sSigsGatewayApiApisV1HTTPRouteSpec, "rules"> & { rules?: HTTPRouteRule[] };
export type ParentReference = IIoK8sSigsGatewayApiApisV1ParentReference;
/** What kedge reads of the route kinds it does not serve: their parents. */
export type RouteSpec = IIoK8sSigsGatewayApiApisV1CommonRouteSpec;

// Gateway and ListenerSet.
export type Listener = IIoK8sSigsGatewayApiApisV1Listener;
export type LabelSelector = NonNullable<IIoK8sSigsGatewayApiApisV1RouteNamespaces["selector"]>;
export type GatewaySpecAddress = OrNull<IIoK8sSigsGatewayApiApisV1GatewaySpecAddress, "value">;
export type GatewaySpec = Omit<IIoK8sSigsGatewayApiApisV1GatewaySpec, "addresses"> & { addresses?: GatewaySpecAddress[] };
/** A Gateway's `tls.frontend.default`, or the `tls` of one of its `perPort` entries. */
export type TLSConfig = IIoK8sSigsGatewayApiApisV1TLSConfig;
export type ListenerSetSpec = IIoK8sSigsGatewayApiApisV1ListenerSetSpec;

// Policies and grants.
export type ReferenceGrantSpec = IIoK8sSigsGatewayApiApisV1ReferenceGrantSpec;
export type BackendTLSPolicySpec = PackageBackendTLSPolicySpec;
export type RetryConstraint = {
  budget?: OrNull<IIoK8sSigsGatewayApiApisxV1alpha1BudgetDetails, "percent" | "interval">;
  minRetryRate?: OrNull<IIoK8sSigsGatewayApiApisxV1alpha1RequestRate, "count" | "interval">;
};
export type XBackendTrafficPolicySpec = Omit<
  IIoK8sSigsGatewayApiApisxV1alpha1BackendTrafficPolicySpec,
  "retryConstraint" | "sessionPersistence"
> & { retryConstraint?: RetryConstraint; sessionPersistence?: SessionPersistence };

// The seed kinds and the core kinds' fields kedge reads: typed beside their schemas.
export type { CompositeBackendSpec, XBackendProtocol, XBackendSpec, BackendLBPolicySpec, ServiceSpec, EndpointSlice };

/** The type of each kind's spec, by kind. */
interface Specs {
  Gateway: GatewaySpec;
  HTTPRoute: HTTPRouteSpec;
  ListenerSet: ListenerSetSpec;
  /** ListenerSet's experimental predecessor, of the same shape (v1.5 has no schema for it: the schema stage refuses it). */
  XListenerSet: ListenerSetSpec;
  GRPCRoute: RouteSpec;
  TLSRoute: RouteSpec;
  TCPRoute: RouteSpec;
  UDPRoute: RouteSpec;
  ReferenceGrant: ReferenceGrantSpec;
  BackendTLSPolicy: BackendTLSPolicySpec;
  XBackendTrafficPolicy: XBackendTrafficPolicySpec;
  BackendLBPolicy: BackendLBPolicySpec;
  CompositeBackend: CompositeBackendSpec;
  XBackend: XBackendSpec;
  Service: ServiceSpec;
  /** An EndpointSlice has no spec: its data is the whole object. */
  EndpointSlice: EndpointSlice;
}

/**
 * The spec of an object of `kind` that passed the schema stage, as its kind's type (an EndpointSlice's
 * whole object). The only cast from the loose Manifest: what the schema checked need not be checked again.
 */
export function specOf<K extends keyof Specs>(m: Manifest, kind: K): Specs[K] {
  return (kind === "EndpointSlice" ? m.raw : m.spec) as Specs[K];
}
