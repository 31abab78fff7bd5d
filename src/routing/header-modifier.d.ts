/** @module RequestHeaderModifier / ResponseHeaderModifier (spec §2): set replaces, add appends, remove deletes. */
import type { HeaderModifier } from "../table/route-table";
/** Applies a modifier in place. Names are compared case-insensitively (Headers does that). */
export declare function applyHeaderModifier(headers: Headers, modifier: HeaderModifier): void;
