import type { ResourceStatus } from "../../src/compile/diagnostics";
/** Writes `<dir>/<cluster>/<kind>-<namespace>-<name>.yaml` for every status; returns the files written. */
export declare function writeStatusFiles(dir: string, statuses: ResourceStatus[], now?: Date): string[];
