/** @module Comparing secrets without an early exit, so timing does not reveal how much of a guess was right. */

/** Equal byte arrays of equal length; lengths differing returns false at once (callers compare fixed-size values). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The same for strings (tokens, MACs in base64url): compared by UTF-16 code unit. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
