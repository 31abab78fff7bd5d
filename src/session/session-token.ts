/**
 * @module Session tokens. A token is `<id>.<sealed>`: a random 128-bit id, and the pin (backend, endpoint,
 * issue time) sealed with AES-256-GCM under a key derived for this id from the session secret (HKDF-SHA256,
 * salt the id), the rule's scope as additional data. A client learns nothing from it (no cluster, namespace
 * or address) and cannot alter or move it to another rule; the token alone routes the next request, so
 * neither a new nor a resumed session waits for storage. A key per token means no key ever seals more than
 * a handful of pins, so random 96-bit IVs never come near their collision bound however many sessions start.
 * Tokens of the earlier forms still open: `<id>.<pin>.<mac>` (the pin readable, HMAC-SHA256 over scope, id
 * and pin) and `<id>.<mac>` (no pin: it is in the SessionStore).
 */

import { sameText } from "./constant-time";

const ID_BYTES = 16;
const MAC_BYTES = 16;
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PIN_KEY_INFO = encoder.encode("kedge session pin v1");

/**
 * What a token pins: the table backend, the endpoint in it, when the session started (ms), and the table version
 * it started on (absent in tokens sealed before canaries), which keeps it on that version while a canary runs.
 */
export interface Pin {
  backend: string;
  endpoint: string;
  createdAt: number;
  version?: string;
}

/** An opened token: its session id, and its pin unless it is of the earliest form. */
export interface VerifiedToken {
  id: string;
  pin?: Pin;
}

/** The keys one session secret gives: HMAC for the earlier forms, HKDF to derive each token's sealing key. */
export interface SessionKeys {
  hmac: CryptoKey;
  hkdf: CryptoKey;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const imported = new Map<string, Promise<SessionKeys>>();

/** The keys for a secret, imported once per isolate. */
export function sessionKeys(secret: string): Promise<SessionKeys> {
  let keys = imported.get(secret);
  if (!keys) {
    const raw = encoder.encode(secret);
    keys = Promise.all([
      crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
      crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]),
    ]).then(([hmac, hkdf]) => ({ hmac, hkdf }));
    imported.set(secret, keys);
  }
  return keys;
}

async function mac(key: CryptoKey, scope: string, signed: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${scope}\n${signed}`));
  return base64url(new Uint8Array(signature).subarray(0, MAC_BYTES));
}

/** The AES-GCM key of one token: derived from the secret with the token's id as salt. */
function pinKey(keys: SessionKeys, id: string): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode(id), info: PIN_KEY_INFO },
    keys.hkdf,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(ID_BYTES)));
}

/** A token for session `id` of `scope` that carries its pin, sealed. */
export async function sealToken(keys: SessionKeys, scope: string, id: string, pin: Pin): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const fields =
    pin.version === undefined ? [pin.backend, pin.endpoint, pin.createdAt] : [pin.backend, pin.endpoint, pin.createdAt, pin.version];
  const plain = encoder.encode(JSON.stringify(fields));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(scope) }, await pinKey(keys, id), plain);
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return `${id}.${base64url(out)}`;
}

/**
 * A token for session `id` of `scope` in the earlier signed form, its pin readable: what Workers before sealed
 * tokens issued (tests of tokens already in clients' hands use it).
 */
export async function signToken(keys: SessionKeys, scope: string, id: string, pin: Pin): Promise<string> {
  const body = `${id}.${base64url(encoder.encode(JSON.stringify([pin.backend, pin.endpoint, pin.createdAt])))}`;
  return `${body}.${await mac(keys.hmac, scope, body)}`;
}

const B64 = "[A-Za-z0-9_-]";
/** `<id>.<sealed>`: IV, at least a short pin, and the tag; bounded so a token cannot be made to cost much. */
const SEALED = new RegExp(`^(${B64}{22})\\.(${B64}{48,2048})$`);
/** `<id>.<mac>` (earliest form) or `<id>.<pin>.<mac>`. */
const SIGNED = new RegExp(`^(${B64}{22})(?:\\.(${B64}{4,2048}))?\\.(${B64}{22})$`);

/** The id part of a well-formed token, not yet opened. */
export function tokenId(token: string): string | null {
  return (SEALED.exec(token) ?? SIGNED.exec(token))?.[1] ?? null;
}

/** A pin as `[backend, endpoint, createdAt, version?]` JSON in base64url (signed form) or as bytes (opened), or null. */
function parsePin(encoded: string | ArrayBuffer): Pin | null {
  try {
    const value: unknown = JSON.parse(decoder.decode(typeof encoded === "string" ? fromBase64url(encoded) : encoded));
    if (!Array.isArray(value) || (value.length !== 3 && value.length !== 4)) return null;
    const [backend, endpoint, createdAt, version] = value as unknown[];
    if (typeof backend !== "string" || typeof endpoint !== "string" || typeof createdAt !== "number") return null;
    if (version !== undefined && typeof version !== "string") return null;
    return { backend, endpoint, createdAt, ...(version !== undefined ? { version } : {}) };
  } catch {
    return null;
  }
}

async function openSealed(keys: SessionKeys, scope: string, id: string, sealedText: string): Promise<VerifiedToken | null> {
  try {
    const sealed = fromBase64url(sealedText);
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES), additionalData: encoder.encode(scope) },
      await pinKey(keys, id),
      sealed.subarray(IV_BYTES),
    );
    const pin = parsePin(plain);
    return pin ? { id, pin } : null;
  } catch {
    // Altered, forged, or sealed for another rule or secret: no session.
    return null;
  }
}

/**
 * The pin a token of the signed form names, read without checking its MAC (for `kedge explain` without the
 * key): what the Worker would use if the token verifies. Null for sealed tokens, which only the key opens.
 */
export function unverifiedPin(token: string): Pin | null {
  const pinText = SIGNED.exec(token)?.[2];
  return pinText === undefined ? null : parsePin(pinText);
}

/** Whether a token's pin is sealed (only the session secret reads it). */
export const isSealed = (token: string): boolean => SEALED.test(token);

/** The session a token carries, or null when it is malformed, or does not open or verify for `scope`. */
export async function openToken(keys: SessionKeys, scope: string, token: string): Promise<VerifiedToken | null> {
  const sealed = SEALED.exec(token);
  if (sealed) return openSealed(keys, scope, sealed[1]!, sealed[2]!);
  const parts = SIGNED.exec(token);
  if (!parts) return null;
  const [, id, pinText, given] = parts as unknown as [string, string, string | undefined, string];
  const signed = pinText === undefined ? id : `${id}.${pinText}`;
  if (!sameText(await mac(keys.hmac, scope, signed), given)) return null;
  if (pinText === undefined) return { id };
  const pin = parsePin(pinText);
  return pin ? { id, pin } : null;
}
