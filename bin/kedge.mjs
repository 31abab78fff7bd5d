#!/usr/bin/env node
// The `kedge` command: runs scripts/cli.ts as one cached esbuild bundle (see scripts/run-bundled.mjs).
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../scripts/cli.ts", import.meta.url));
process.argv = [
  process.argv[0] ?? "node",
  fileURLToPath(new URL("../scripts/run-bundled.mjs", import.meta.url)),
  cli,
  ...process.argv.slice(2),
];
await import("../scripts/run-bundled.mjs");
