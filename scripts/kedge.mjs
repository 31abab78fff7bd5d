#!/usr/bin/env node
// The `kedge` command (package.json "bin"): runs scripts/cli/main.ts as one cached esbuild bundle (see run-bundled.mjs).
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("./cli/main.ts", import.meta.url));
process.argv = [process.argv[0] ?? "node", fileURLToPath(new URL("./run-bundled.mjs", import.meta.url)), cli, ...process.argv.slice(2)];
await import("./run-bundled.mjs");
