/**
 * @module Every reason kedge gives, in a condition, a diagnostic or the table: the Gateway API's names where it has
 * one (spec §status), else kedge's own. One vocabulary for both sides: the compiler writes them
 * (compile/status/conditions.ts), the table carries an invalid backendRef's, and the Worker names one itself.
 */

/** Every reason kedge writes in a condition or a FieldProblem. */
export const REASON = {
  Accepted: "Accepted",
  Programmed: "Programmed",
  ResolvedRefs: "ResolvedRefs",
  SupportedVersion: "SupportedVersion",
  PartiallyInvalid: "PartiallyInvalid",
  // Why something is not accepted or not resolved (Gateway API).
  UnsupportedValue: "UnsupportedValue",
  UnsupportedProtocol: "UnsupportedProtocol",
  BackendNotFound: "BackendNotFound",
  InvalidKind: "InvalidKind",
  RefNotPermitted: "RefNotPermitted",
  NoMatchingParent: "NoMatchingParent",
  NotAllowedByListeners: "NotAllowedByListeners",
  NoMatchingListenerHostname: "NoMatchingListenerHostname",
  HostnameConflict: "HostnameConflict",
  Conflicted: "Conflicted",
  ListenersNotValid: "ListenersNotValid",
  InvalidRouteKinds: "InvalidRouteKinds",
  Invalid: "Invalid",
  TargetNotFound: "TargetNotFound",
  NotAllowed: "NotAllowed",
  NoValidCACertificate: "NoValidCACertificate",
  InvalidCACertificateRef: "InvalidCACertificateRef",
  InvalidBackendTLSPolicy: "InvalidBackendTLSPolicy",
  InvalidClientCertificateRef: "InvalidClientCertificateRef",
  // kedge's own, for what a Gateway API controller has no reason for.
  /** A field the schema does not know (as `kubectl apply --validate=strict` refuses it). */
  UnknownField: "UnknownField",
  /** Another controller's object, or one kedge does not read: left alone. */
  Ignored: "Ignored",
  /** The same object twice in one cluster: the first is used. */
  Duplicate: "Duplicate",
  /** A Gateway copy that differs from the served one: served as its own cluster's. */
  NotMerged: "NotMerged",
  /** TLS at the edge is Cloudflare's: certificateRefs are not presented. */
  EdgeCertificate: "EdgeCertificate",
  /** A served backend with no endpoint that takes new requests. */
  NoReadyEndpoints: "NoReadyEndpoints",
  /** Another implementation's policy on something the edge serves: not enforced here. */
  NotEnforced: "NotEnforced",
  /** No Gateway of this edge's class: the edge serves nothing. */
  NothingServed: "NothingServed",
  /** An external backend reached without TLS. */
  PlainHTTP: "PlainHTTP",
  /** Where client certificates are verified (by Cloudflare, for the hostnames). */
  ClientCertificates: "ClientCertificates",
  /** A Gateway address of a type the edge does not use (an IP: Cloudflare owns those). */
  UnsupportedAddress: "UnsupportedAddress",
  /** Two Gateways take the same hosts on the same port: at the edge they share one address. */
  GatewaysOverlap: "GatewaysOverlap",
  /** An EndpointSlice of a used Service that the edge cannot use (no port of the Service port's name, no label). */
  EndpointsDropped: "EndpointsDropped",
  /** A configured cluster that takes no traffic, and why. */
  NoTraffic: "NoTraffic",
  /** A field or kind the Gateway API has deprecated: still honoured, and named so it can be moved. */
  Deprecated: "Deprecated",
} as const;

export type Reason = (typeof REASON)[keyof typeof REASON];
