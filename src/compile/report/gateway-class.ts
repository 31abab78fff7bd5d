/** @module The served GatewayClass, as its controller reports it: accepted, with the features it supports. */
import type { CompileReport } from "../status/compile-report";
import { accepted, holds, REASON } from "../status/conditions";
import type { ResourceIndex } from "../input/resource-index";
import { supportedFeatures } from "./features";

export function reportGatewayClass(index: ResourceIndex, gatewayClassName: string, report: CompileReport): void {
  for (const gatewayClass of index.all("GatewayClass").filter((c) => c.metadata.name === gatewayClassName)) {
    report.setConditions(gatewayClass, [accepted("served by kedge at the edge"), holds("SupportedVersion", REASON.SupportedVersion)]);
    report.setSupportedFeatures(gatewayClass, supportedFeatures());
  }
}
