/**
 * scripts/run-bundled.mjs, which `npm run sync` runs through: the command sees its own arguments and its
 * modules their own import.meta, an edited source is rebuilt before it runs, and an unchanged one is not.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
const LAUNCHER = join(ROOT, "scripts", "run-bundled.mjs");
const CACHE = join(ROOT, "node_modules", ".cache", "kedge");

describe("run-bundled", () => {
  const dir = mkdtempSync(join(tmpdir(), "kedge-run-bundled-"));
  const nested = join(dir, "lib");
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const f of readdirSync(CACHE)) if (f.startsWith("probe-")) rmSync(join(CACHE, f));
  });

  /** Writes a file with a modification time `secondsAhead` from now, so an edit is newer than any bundle. */
  const write = (path: string, text: string, secondsAhead = 0) => {
    writeFileSync(path, text);
    const at = new Date(Date.now() + secondsAhead * 1000);
    utimesSync(path, at, at);
  };
  const run = (...args: string[]) =>
    execFileSync(process.execPath, [LAUNCHER, join(dir, "probe.ts"), ...args])
      .toString()
      .trim();
  const bundle = () => readdirSync(CACHE).find((f) => f.startsWith("probe-") && f.endsWith(".mjs"))!;

  beforeAll(() => {
    mkdirSync(nested);
    write(join(nested, "word.ts"), `export const word: string = "one"; export const where = import.meta.dirname;\n`);
    write(
      join(dir, "probe.ts"),
      `import { word, where } from "./lib/word";\nconsole.log(JSON.stringify({ word, where, here: import.meta.dirname, argv: process.argv.slice(2) }));\n`,
    );
  });

  it("runs a TypeScript entry with its arguments, each module keeping its own import.meta", () => {
    expect(JSON.parse(run("--config", "x y"))).toEqual({ word: "one", where: nested, here: dir, argv: ["--config", "x y"] });
  });

  it("rebuilds when a source it was built from changes, and only then", () => {
    run();
    const built = statSync(join(CACHE, bundle())).mtimeMs;
    expect(JSON.parse(run()).word).toBe("one");
    expect(statSync(join(CACHE, bundle())).mtimeMs).toBe(built);
    write(join(nested, "word.ts"), `export const word: string = "two"; export const where = import.meta.dirname;\n`, 5);
    expect(JSON.parse(run()).word).toBe("two");
  });
});
