/**
 * @module Whether the manifests to read fit in this process's memory, decided before they are read: a dump too
 * big for the heap would otherwise end the process with V8's "JavaScript heap out of memory" trace after a
 * minute of work. A sync's live memory peaks at up to sixteen times its input's size (measured: a kubectl dump,
 * mostly objects no route reaches, about ten; 100,000 routes, every object compiled, about fifteen); a read that
 * would pass the heap limit stops at once with one line that says so and what to do.
 */
import { getHeapStatistics } from "node:v8";
import { UserError } from "../lib/user-error";

/** Peak memory of a read, as a multiple of the text's bytes. */
export const READ_COST = 16;

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GB`;

export class ReadBudget {
  private bytes = 0;
  private readonly limit: number;

  constructor(limit = getHeapStatistics().heap_size_limit) {
    this.limit = limit;
  }

  /** Counts a file of `size` bytes in; throws a UserError when everything read so far would not fit. */
  admit(file: string, size: number): void {
    this.bytes += size;
    const need = this.bytes * READ_COST;
    if (need <= this.limit) return;
    throw new UserError(
      `${file}: ${mb(this.bytes)} of manifests to read need about ${gb(need)} of memory, more than this process may use (${gb(this.limit)})`,
      `give Node more (NODE_OPTIONS=--max-old-space-size=${Math.ceil((need * 1.25) / 2 ** 20)}), or dump less: only the kinds kedge reads (kubectl get gateways,httproutes,services,endpointslices,... -A -o yaml), or a cluster's namespaces apart; nothing was written`,
    );
  }
}
