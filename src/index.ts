/** @module Worker entry: wiring only. */
import { createApp } from "./worker/app";

export { SessionStore } from "./session/session-store";

export default createApp();
