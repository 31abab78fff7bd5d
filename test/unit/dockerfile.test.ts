/**
 * The Dockerfile at the top of the repository, read statement by statement (no Docker engine runs here to
 * build it): a Node slim image, the packed kedge and the pinned wrangler installed with npm, a numeric
 * non-root USER in the final stage, nothing secret in it, and `kedge sync --watch` as its entrypoint.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const statements = readFileSync(join(ROOT, "Dockerfile"), "utf8")
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => ({ op: l.split(/\s+/)[0]!.toUpperCase(), rest: l.slice(l.indexOf(" ") + 1) }));
/** The statements of the last stage: the image that runs. */
const final = statements.slice(statements.map((s) => s.op).lastIndexOf("FROM"));

describe("the Dockerfile", () => {
  it("builds on Node's slim image and installs the packed kedge and the wrangler kedge is tested with", ({ expect }) => {
    for (const from of statements.filter((s) => s.op === "FROM")) expect(from.rest).toMatch(/^node:\d+-slim\b/);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    const run = statements.find((s) => s.op === "RUN" && s.rest.includes("npm install"))!.rest;
    expect(run).toContain("kedge-*.tgz");
    expect(run).toContain(`wrangler@${pkg.devDependencies.wrangler}`);
  });

  it("runs as a numeric non-root user, and its entrypoint is kedge sync --watch", ({ expect }) => {
    const users = final.filter((s) => s.op === "USER");
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.rest.split(":")[0]!;
    expect(user).toMatch(/^\d+$/);
    expect(Number(user)).toBeGreaterThan(0);
    const entrypoint = JSON.parse(final.find((s) => s.op === "ENTRYPOINT")!.rest) as string[];
    expect(entrypoint.slice(-3)).toEqual(
      ["cli.mjs", "sync", "--watch"].map((w, i) => (i === 0 ? expect.stringMatching(/kedge\/dist\/cli\.mjs$/) : w)),
    );
  });

  it("bakes in no secret: no token, key or password in ENV or ARG, no kubeconfig or .dev.vars copied", ({ expect }) => {
    for (const s of statements.filter((s) => s.op === "ENV" || s.op === "ARG"))
      expect(s.rest).not.toMatch(/TOKEN|SECRET|PASSWORD|API_KEY|ACCOUNT_ID/i);
    for (const s of statements.filter((s) => s.op === "COPY" || s.op === "ADD"))
      expect(s.rest).not.toMatch(/kubeconfig|\.kube|\.dev\.vars|\.env\b/);
  });
});
