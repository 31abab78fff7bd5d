import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it, onTestFinished } from "vitest";
import { loadConfig } from "../../scripts/config/load-config";
import { ReadBudget, textShape } from "../../scripts/config/read-budget";
import { UserError } from "../../scripts/lib/user-error";
import { aliasBomb, edgeConfig, service } from "../support/manifests";

/** A config folder with kedge.yaml and an empty clusters/c1, and a sibling folder outside it. */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "kedge-load-"));
  const config = join(dir, "config");
  const cluster = join(config, "clusters", "c1");
  const shared = join(dir, "shared");
  mkdirSync(cluster, { recursive: true });
  mkdirSync(shared);
  writeFileSync(join(config, "kedge.yaml"), edgeConfig("links"));
  return { dir, config, cluster, shared };
}

const names = (config: string) => loadConfig(config).manifests.map((m) => `${m.metadata.name} ${m.file.split("/").pop()}`);

describe("reading the config folder", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("reads manifests linked in from elsewhere, as files or folders", ({ expect }) => {
    const ws = workspace();
    made.push(ws.dir);
    writeFileSync(join(ws.cluster, "own.yaml"), service("own", "shop"));
    writeFileSync(join(ws.shared, "linked.yaml"), service("linked", "shop"));
    mkdirSync(join(ws.shared, "more"));
    writeFileSync(join(ws.shared, "more", "deeper.yaml"), service("deeper", "shop"));
    symlinkSync(join(ws.shared, "linked.yaml"), join(ws.cluster, "linked.yaml"));
    symlinkSync(join(ws.shared, "more"), join(ws.cluster, "more"));
    expect(names(ws.config)).toEqual(["linked linked.yaml", "deeper deeper.yaml", "own own.yaml"]);
  });

  it("reads a file reached twice, or through a link loop, once", ({ expect }) => {
    const ws = workspace();
    made.push(ws.dir);
    writeFileSync(join(ws.cluster, "routes.yaml"), service("web", "shop"));
    symlinkSync("routes.yaml", join(ws.cluster, "same.yaml"));
    symlinkSync(".", join(ws.cluster, "loop"));
    symlinkSync("..", join(ws.cluster, "up"));
    expect(names(ws.config)).toEqual(["web routes.yaml"]);
  });

  it("stops at a link to a manifest that does not exist, naming it; other broken links are not manifests", ({ expect }) => {
    const ws = workspace();
    made.push(ws.dir);
    writeFileSync(join(ws.cluster, "web.yaml"), service("web", "shop"));
    symlinkSync(join(ws.shared, "gone.txt"), join(ws.cluster, "notes.txt"));
    expect(names(ws.config)).toEqual(["web web.yaml"]);
    symlinkSync(join(ws.shared, "gone.yaml"), join(ws.cluster, "routes.yaml"));
    expect(() => loadConfig(ws.config)).toThrow(UserError);
    expect(() => loadConfig(ws.config)).toThrow(
      `${join(ws.cluster, "routes.yaml")} links to ${join(ws.shared, "gone.yaml")}, which does not exist`,
    );
  });

  it("says whether --config names nothing or a file", ({ expect }) => {
    const ws = workspace();
    made.push(ws.dir);
    expect(() => loadConfig(join(ws.dir, "missing"))).toThrow(`config folder ${join(ws.dir, "missing")} does not exist`);
    expect(() => loadConfig(join(ws.config, "kedge.yaml"))).toThrow(
      `config folder ${join(ws.config, "kedge.yaml")} is a file, not a folder`,
    );
  });

  it("refuses a kedge.yaml whose aliases expand too far, naming the file", ({ expect }) => {
    const ws = workspace();
    made.push(ws.dir);
    writeFileSync(join(ws.config, "kedge.yaml"), aliasBomb());
    expect(() => loadConfig(ws.config)).toThrow(UserError);
    expect(() => loadConfig(ws.config)).toThrow(new RegExp(`^${join(ws.config, "kedge.yaml")}:1:1: .*alias`, "i"));
  });
});

describe("the read budget", () => {
  it("refuses, in one line with its fix, manifests too big for the heap, before reading them", ({ expect }) => {
    const budget = new ReadBudget(1200 * 2 ** 20);
    budget.admit("clusters/a/one.yaml", 60 * 2 ** 20);
    expect(() => budget.admit("clusters/a/dump.yaml", 50 * 2 ** 20)).toThrow(UserError);
    expect(() => budget.admit("clusters/a/dump.yaml", 0)).toThrow(
      /^clusters\/a\/dump\.yaml: 110 MB of manifests to read \(not counting whitespace\) need about 1\.3 GB of memory, more than this process may use \(1\.2 GB\)$/,
    );
  });

  it("counts what is not whitespace: a dump that is mostly indentation costs what its text without them does", ({ expect }) => {
    const budget = new ReadBudget(1200 * 2 ** 20);
    // 200 MB as kubectl's JSON prints a deep object (60 % spaces) is 80 MB of text to parse: admitted.
    budget.admit("clusters/a/routes.json", 200 * 2 ** 20, 0.4, "json");
    expect(() => budget.admit("clusters/a/more.yaml", 50 * 2 ** 20)).toThrow(/^clusters\/a\/more\.yaml: 130 MB of manifests/);
  });

  it("counts JSON read for one compile at the smaller peak that compile makes, YAML at its own", ({ expect }) => {
    const json = 180 * 2 ** 20;
    new ReadBudget(1200 * 2 ** 20, { once: true }).admit("clusters/a/routes.json", json, 1, "json");
    expect(() => new ReadBudget(1200 * 2 ** 20).admit("clusters/a/routes.json", json, 1, "json")).toThrow(/need about 1\.4 GB/);
    expect(() => new ReadBudget(1200 * 2 ** 20, { once: true }).admit("clusters/a/routes.yaml", json, 1, "yaml")).toThrow(
      /need about 2\.1 GB/,
    );
  });

  it("measures a file's share of indentation from samples of it", ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), "kedge-dense-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const indented = join(dir, "indented.json");
    // Four spaces and a newline around each six-byte field: 6 of 16 bytes are not whitespace.
    writeFileSync(indented, `    "a": 1,\n    `.repeat(200_000));
    expect(textShape(indented, statSync(indented).size).dense).toBeCloseTo(6 / 16, 2);
    const compact = join(dir, "compact.json");
    writeFileSync(compact, JSON.stringify({ items: Array.from({ length: 50_000 }, (_, i) => ({ name: `r${i}` })) }));
    expect(textShape(compact, statSync(compact).size).dense).toBe(1);
  });

  it("tells JSON from YAML as the reader does: by the name, else by the first character that is not a space", ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), "kedge-format-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const files = {
      "list.json": "[]",
      "dump.yaml": '\n  {"kind": "List", "items": []}',
      "routes.yaml": "kind: List\nitems: []\n",
      "empty.yaml": "",
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const format = (name: string) => textShape(join(dir, name), statSync(join(dir, name)).size).format;
    expect(Object.keys(files).map(format)).toEqual(["json", "json", "yaml", "yaml"]);
  });

  it("refuses a file longer than a string can be, in one line with its fix", ({ expect }) => {
    expect(() => new ReadBudget(2 ** 40).admit("clusters/a/huge.json", 600 * 2 ** 20)).toThrow(
      /^clusters\/a\/huge\.json: 600 MB is more than kedge reads as one file \(512 MB\)$/,
    );
  });
});
