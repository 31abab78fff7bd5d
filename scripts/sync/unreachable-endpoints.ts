/**
 * @module Endpoints a deployed Worker cannot reach: production fetch() refuses IP literals, and
 * `localhost` is the edge itself. Fine for `npm start` and local pushes; worth a warning on --remote.
 */
import { isIpLiteral, isLocalhost } from "../../src/gateway-api/hostname";
import type { RouteTable } from "../../src/table/route-table";

export interface UnreachableEndpoint {
  backend: string;
  endpoint: string;
  why: string;
}

export function unreachableEndpoints(table: RouteTable): UnreachableEndpoint[] {
  const found: UnreachableEndpoint[] = [];
  for (const backend of Object.values(table.backends)) {
    for (const e of backend.endpoints) {
      const host = e.host.toLowerCase();
      const why = isIpLiteral(host)
        ? "an IP literal (production Workers fetch() refuses IP addresses; use a LoadBalancer hostname or a hostname template)"
        : isLocalhost(host)
          ? "localhost (the edge itself, not your cluster)"
          : undefined;
      if (why) found.push({ backend: backend.id, endpoint: e.id, why });
    }
  }
  return found;
}
