/** @module Child process of the sync benchmark: times what a cold host costs the edge, from the texts sync-probe.ts wrote. */
import { readFileSync } from "node:fs";
import { type ColdHostTexts, timeColdHost } from "./matcher-bench";

const texts = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as ColdHostTexts;
process.stdout.write(JSON.stringify(timeColdHost(texts)));
