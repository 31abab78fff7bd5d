/**
 * @module Session tokens: `<id>.<mac>`, a random 128-bit id and an HMAC-SHA256 (truncated to 128 bits)
 * over the rule's scope and the id. A token that does not verify (forged, altered, or minted for
 * another rule) is no session, decided without a Durable Object call.
 */

import { sameText } from "./constant-time";

const ID_BYTES = 16;
const MAC_BYTES = 16;
const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key for a secret, imported once per isolate. */
export function sessionKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

async function mac(key: CryptoKey, scope: string, id: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${scope}\n${id}`));
  return base64url(new Uint8Array(signature).subarray(0, MAC_BYTES));
}

export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(ID_BYTES)));
}

export async function signToken(key: CryptoKey, scope: string, id: string): Promise<string> {
  return `${id}.${await mac(key, scope, id)}`;
}

const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

/** The id part of a well-formed token, not yet verified. */
export function tokenId(token: string): string | null {
  return TOKEN.exec(token)?.[1] ?? null;
}

/** The session id a token carries, or null when it is malformed or its MAC does not verify for `scope`. */
export async function verifyToken(key: CryptoKey, scope: string, token: string): Promise<string | null> {
  const parts = TOKEN.exec(token);
  if (!parts) return null;
  const [, id, given] = parts as unknown as [string, string, string];
  return sameText(await mac(key, scope, id), given) ? id : null;
}
