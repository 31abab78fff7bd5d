import type { HostIndex, Protocol } from "../table/route-table";
import type { EdgeListener } from "./gateways";
import type { Attachment } from "./http-routes";
import { type RankedMatch } from "./precedence";
/** An attachment with the table matches it contributes. */
export interface IndexedAttachment extends Attachment {
  matches: RankedMatch[];
}
/**
 * Candidate match indexes for one host, in precedence order. This is also the reference ("linear")
 * matcher: it scans every attachment, which is what the index saves the Worker from doing.
 */
export declare function candidatesForHost(attachments: IndexedAttachment[], host: string): number[];
/** The host index of one protocol. Listeners without routes still claim their hosts (so those 404). */
export declare function buildHostIndex(protocol: Protocol, listeners: EdgeListener[], attachments: IndexedAttachment[]): HostIndex;
