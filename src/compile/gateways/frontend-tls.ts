/**
 * @module Gateway `spec.tls.frontend` (GEP-91): client certificate validation on the Gateway's HTTPS
 * listeners. At the edge Cloudflare terminates TLS and checks a client certificate against the CA you
 * associated with the hostname (API Shield / mTLS); the Worker reads the verdict from
 * `request.cf.tlsClientAuth`. So `AllowValidOnly` (the default) becomes "a request without a verified
 * certificate answers 403", `AllowInsecureFallback` lets it through. What the edge cannot express is an
 * error: a port whose CA list differs from another's (Cloudflare's verdict does not say which CA signed).
 */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import type { Manifest } from "../../gateway-api/manifest";
import { specOf, type TLSConfig } from "../input/typed-objects";

/** What a listener asks of client certificates. */
export type ClientCertificate = "required" | "optional";

interface Validation {
  mode: ClientCertificate;
  cas: string;
}

function validationOf({ validation }: TLSConfig): Validation | undefined {
  if (!validation) return undefined;
  return {
    mode: validation.mode === "AllowInsecureFallback" ? "optional" : "required",
    cas: JSON.stringify(validation.caCertificateRefs),
  };
}

function validations(gateway: Manifest): ((port: number) => Validation | undefined) | undefined {
  const frontend = specOf(gateway, "Gateway").tls?.frontend;
  if (!frontend) return undefined;
  const byDefault = validationOf(frontend.default);
  const perPort = new Map<number, Validation | undefined>();
  for (const entry of frontend.perPort ?? []) perPort.set(entry.port, validationOf(entry.tls));
  return (port) => (perPort.has(port) ? perPort.get(port) : byDefault);
}

/** The client certificate requirement of the Gateway's HTTPS listeners on `port` (its own or its ListenerSets'). */
export function clientCertificateOn(gateway: Manifest, port: number): ClientCertificate | undefined {
  return validations(gateway)?.(port)?.mode;
}

/** Reports, once per Gateway, what the edge does with its frontend validation on `httpsPorts`, or why it cannot. */
export function reportFrontendValidation(gateway: Manifest, httpsPorts: number[], report: CompileReport): void {
  const at = validations(gateway);
  const used = at ? httpsPorts.map(at).filter((v): v is Validation => v !== undefined) : [];
  if (new Set(used.map((v) => v.cas)).size > 1) {
    report.error(
      gateway,
      "spec.tls.frontend",
      REASON.UnsupportedValue,
      "HTTPS ports name different caCertificateRefs: Cloudflare verifies a client certificate against the CAs associated with the hostname and does not tell the Worker which one signed it; use one CA list",
    );
  } else if (used.length > 0) {
    report.tell(
      "info",
      gateway,
      "spec.tls.frontend",
      REASON.ClientCertificates,
      "client certificates are verified by Cloudflare against the CA you associate with these hostnames (docs/configuration.md: client certificates); without a verified one a request answers 403 where the mode is AllowValidOnly",
    );
  }
}
