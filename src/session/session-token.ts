/**
 * @module Session tokens. A token is `<id>.<pin>.<mac>`: a random 128-bit id, the pin (backend, endpoint,
 * issue time) as base64url JSON, and an HMAC-SHA256 (truncated to 128 bits) over the rule's scope, the id
 * and the pin. The token alone routes the next request, so neither a new nor a resumed session waits for
 * storage. A token that does not verify (forged, altered, or minted for another rule) is no session,
 * decided without a Durable Object call. Tokens of the earlier form `<id>.<mac>` (no pin) still verify;
 * their pin is in the SessionStore.
 */

import { sameText } from "./constant-time";

const ID_BYTES = 16;
const MAC_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What a token pins: the table backend, the endpoint in it, and when the session started (ms). */
export interface Pin {
  backend: string;
  endpoint: string;
  createdAt: number;
}

/** A verified token: its session id, and its pin unless it is of the earlier form. */
export interface VerifiedToken {
  id: string;
  pin?: Pin;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
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

async function mac(key: CryptoKey, scope: string, signed: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${scope}\n${signed}`));
  return base64url(new Uint8Array(signature).subarray(0, MAC_BYTES));
}

export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(ID_BYTES)));
}

/** A token for session `id` of `scope` that carries its pin. */
export async function signToken(key: CryptoKey, scope: string, id: string, pin: Pin): Promise<string> {
  const body = `${id}.${base64url(encoder.encode(JSON.stringify([pin.backend, pin.endpoint, pin.createdAt])))}`;
  return `${body}.${await mac(key, scope, body)}`;
}

const B64 = "[A-Za-z0-9_-]";
/** `<id>.<mac>` (earlier form) or `<id>.<pin>.<mac>`; the pin is bounded so a token cannot be made to cost much. */
const TOKEN = new RegExp(`^(${B64}{22})(?:\\.(${B64}{4,2048}))?\\.(${B64}{22})$`);

/** The id part of a well-formed token, not yet verified. */
export function tokenId(token: string): string | null {
  return TOKEN.exec(token)?.[1] ?? null;
}

function parsePin(text: string): Pin | null {
  try {
    const value: unknown = JSON.parse(decoder.decode(fromBase64url(text)));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [backend, endpoint, createdAt] = value as unknown[];
    if (typeof backend !== "string" || typeof endpoint !== "string" || typeof createdAt !== "number") return null;
    return { backend, endpoint, createdAt };
  } catch {
    return null;
  }
}

/**
 * The pin a token names, read without checking its MAC (for `kedge explain`, which has no key): what the
 * Worker would use if the token verifies.
 */
export function unverifiedPin(token: string): Pin | null {
  const pinText = TOKEN.exec(token)?.[2];
  return pinText === undefined ? null : parsePin(pinText);
}

/** The session a token carries, or null when it is malformed or its MAC does not verify for `scope`. */
export async function verifyToken(key: CryptoKey, scope: string, token: string): Promise<VerifiedToken | null> {
  const parts = TOKEN.exec(token);
  if (!parts) return null;
  const [, id, pinText, given] = parts as unknown as [string, string, string | undefined, string];
  const signed = pinText === undefined ? id : `${id}.${pinText}`;
  if (!sameText(await mac(key, scope, signed), given)) return null;
  if (pinText === undefined) return { id };
  const pin = parsePin(pinText);
  return pin ? { id, pin } : null;
}
