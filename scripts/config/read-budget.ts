/**
 * @module Whether the manifests to read fit in this process's memory, decided before they are read: a dump too
 * big for the heap would otherwise end the process with V8's "JavaScript heap out of memory" trace after a
 * minute of work. A read that would pass the heap limit stops at once with one line that says so and what to do.
 * Indentation costs nothing once parsed: the cost counts the text's other bytes.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { UserError } from "../lib/user-error";

/**
 * What a read and its compile hold at their peak (the live heap), as a multiple of the text's bytes that are not
 * whitespace, with a margin over what was measured (each stage's end, after a full GC):
 * - JSON read for one compile (LoadOptions.once): 100,000 routes 5.6, 1,000,000 routes 5.3;
 * - JSON compiled again later (--watch, dev), every route's spec kept: 100,000 routes 7.1;
 * - YAML: 100,000 routes 10 (js-yaml's strings are slices of the file's text, which they keep while read).
 */
export const READ_COST = { json: 6, jsonKept: 8, yaml: 12 } as const;

/** How a file is read: JSON.parse, or the YAML readers. */
export type TextFormat = "json" | "yaml";

/** The longest string V8 makes (2^29 - 24 characters): a file is read as one. */
export const MAX_FILE_BYTES = 2 ** 29 - 24;

const SAMPLES = 16;
const SAMPLE_BYTES = 16 * 1024;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * What reading a file costs depends on: the share of its bytes that are not whitespace (space, tab, CR, LF), from
 * 16 samples of 16 KiB spread across it (reading them costs a millisecond, and indentation is even through a
 * dump), and how the reader will read it, as parseManifestFile decides: JSON when it is named `.json` or its text
 * starts with `{` (after whitespace, in the first sample), else YAML.
 */
export function textShape(path: string, size: number): { dense: number; format: TextFormat } {
  let format: TextFormat = path.toLowerCase().endsWith(".json") ? "json" : "yaml";
  if (size === 0) return { dense: 1, format };
  const fd = openSync(path, "r");
  try {
    const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
    let seen = 0;
    let dense = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const read = readSync(fd, sample, 0, sample.length, Math.floor(((size - sample.length) * i) / Math.max(1, SAMPLES - 1)));
      if (i === 0) {
        const first = sample.subarray(0, read).findIndex((byte) => !isSpace(byte));
        if (first >= 0 && sample[first] === 0x7b) format = "json";
      }
      for (let j = 0; j < read; j++) if (!isSpace(sample[j]!)) dense++;
      seen += read;
    }
    return { dense: seen === 0 ? 1 : dense / seen, format };
  } finally {
    closeSync(fd);
  }
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GB`;

export class ReadBudget {
  private bytes = 0;
  private need = 0;
  private readonly limit: number;
  private readonly once: boolean;

  /** `once`: the objects are compiled once (LoadOptions.once). */
  constructor(limit = getHeapStatistics().heap_size_limit, options: { once?: boolean } = {}) {
    this.limit = limit;
    this.once = options.once ?? false;
  }

  /**
   * Counts a file of `size` bytes, `dense` of them not whitespace, in; throws a UserError when everything read so
   * far would not fit, or the file is longer than a string can be.
   */
  admit(file: string, size: number, dense = 1, format: TextFormat = "yaml"): void {
    if (size > MAX_FILE_BYTES)
      throw new UserError(
        `${file}: ${mb(size)} is more than kedge reads as one file (${mb(MAX_FILE_BYTES)})`,
        "split it: one file per kind or per namespace (kubectl get ... -n NAMESPACE), in the same cluster folder; nothing was written",
      );
    this.bytes += size * dense;
    this.need += size * dense * (format === "yaml" ? READ_COST.yaml : this.once ? READ_COST.json : READ_COST.jsonKept);
    const need = this.need;
    if (need <= this.limit) return;
    throw new UserError(
      `${file}: ${mb(this.bytes)} of manifests to read (not counting whitespace) need about ${gb(need)} of memory, more than this process may use (${gb(this.limit)})`,
      `give Node more (NODE_OPTIONS=--max-old-space-size=${Math.ceil((need * 1.25) / 2 ** 20)}), or dump less: only the kinds kedge reads (kubectl get gateways,httproutes,services,endpointslices,... -A -o yaml), or a cluster's namespaces apart; nothing was written`,
    );
  }
}
