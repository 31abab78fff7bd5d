/** @module The served GatewayClass, as its controller reports it: accepted, with the features it supports. */
import { accepted, holds, REASON } from "../status/conditions";
import type { StatusBook } from "../status/status-book";
import type { ResourceIndex } from "../input/resource-index";
import { supportedFeatures } from "./features";

export function reportGatewayClass(index: ResourceIndex, gatewayClassName: string, book: StatusBook): void {
  for (const gatewayClass of index.all("GatewayClass").filter((c) => c.metadata.name === gatewayClassName)) {
    book.setConditions(gatewayClass, [accepted("served by kedge at the edge"), holds("SupportedVersion", REASON.SupportedVersion)]);
    book.setSupportedFeatures(gatewayClass, supportedFeatures());
  }
}
