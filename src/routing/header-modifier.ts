/** @module RequestHeaderModifier / ResponseHeaderModifier (spec §2): set replaces, add appends, remove deletes. */
import type { HeaderModifier } from "../table/route-table";

/** Applies a modifier in place. Names are compared case-insensitively (Headers does that). */
export function applyHeaderModifier(headers: Headers, modifier: HeaderModifier): void {
  for (const { name, value } of modifier.set) headers.set(name, value);
  for (const { name, value } of modifier.add) {
    const existing = headers.get(name);
    // Conformance compares comma-joined values: "old,new".
    headers.set(name, existing === null ? value : `${existing},${value}`);
  }
  for (const name of modifier.remove) headers.delete(name);
}
