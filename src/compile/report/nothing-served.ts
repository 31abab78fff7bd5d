/**
 * @module A config that serves nothing while its clusters hold Gateways: every Gateway is of another
 * class than kedge.yaml's spec.gatewayClassName, usually a typo on one side. Each other class is left
 * alone by design (ownership.ts), so without this warning the mistake would read as "valid".
 */
import type { CompileReport } from "../status/compile-report";
import { REASON } from "../status/conditions";
import type { Manifest } from "../../gateway-api/manifest";

/** Warns once per other class, on its first Gateway, when no Gateway is of `gatewayClassName`. */
export function reportNothingServed(theirs: Iterable<Manifest>, gatewayClassName: string, report: CompileReport): void {
  const warned = new Set<string>();
  for (const gateway of theirs) {
    const className = String(gateway.spec.gatewayClassName ?? "");
    if (gateway.kind !== "Gateway" || warned.has(className)) continue;
    warned.add(className);
    report.warn(
      gateway,
      "spec.gatewayClassName",
      REASON.NothingServed,
      `no Gateway of class ${gatewayClassName} (kedge.yaml spec.gatewayClassName) in any cluster, so nothing is served; this Gateway is of class ${className || "(none)"}: if it is meant for kedge, make the two names agree`,
    );
  }
}
