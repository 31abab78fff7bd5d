/**
 * @module The session HMAC key for local runs (`npm start`, tests): generated once and kept next to the
 * local state, so sessions survive a restart just as the Durable Object data does. Deployed Workers
 * use the SESSION_HMAC_KEY secret instead.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SESSION_KEY_FILE = "kedge-session-hmac-key";

export function localSessionKey(persistTo?: string): string {
  if (!persistTo) return randomBytes(32).toString("base64url");
  const file = join(persistTo, SESSION_KEY_FILE);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const key = randomBytes(32).toString("base64url");
  mkdirSync(persistTo, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
