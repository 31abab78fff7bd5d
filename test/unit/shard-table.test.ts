/**
 * Sharding by host: every request is answered by its host's shard exactly as the whole table answers it,
 * shards stay near the shard size, parts shared by hosts are copied into each shard that needs them, and a
 * table KV cannot hold is refused naming what is too large.
 */
import { describe, expect, it } from "vitest";
import { diffTables } from "../../scripts/report/diff-tables";
import { planOrRefuse } from "../../scripts/cli/compile-for-edge";
import { UserError } from "../../scripts/lib/user-error";
import { joinShards, planStorage } from "../../src/table/shard-table";
import { canonicalJson } from "../../src/table/canonical-json";
import { matchRequest, type RequestFacts, type RouteMatch } from "../../src/routing/match-request";
import { prepareTable } from "../../src/routing/prepared-table";
import { parseStoredTable } from "../../src/table/parse-route-table";
import { isSharded, type RouteTable, type ShardedTable } from "../../src/table/route-table";
import { MAX_LOADED_SHARDS, ShardedServedTable } from "../../src/worker/served-table";
import { compileYaml } from "../support/compile-fixture";
import { EDGE_YAML } from "../support/conformance-infra";
import { manyHostsYaml, SAMPLE_HOSTS } from "../support/many-hosts";

const PORTS = { v1: 1001, v2: 1002, v3: 1003 };
const ROUTES = 300;

async function compiled(): Promise<RouteTable> {
  const { table, diagnostics } = await compileYaml(EDGE_YAML, { c1: manyHostsYaml(PORTS, ROUTES) });
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return table;
}

function requests(): RequestFacts[] {
  const out: RequestFacts[] = [];
  for (const host of SAMPLE_HOSTS) {
    for (let i = 0; i < ROUTES; i += 7) {
      for (const headers of [new Headers(), new Headers({ "x-shard": "yes" })]) {
        out.push({ protocol: "HTTP", host, path: `/r${i}/x`, method: "GET", headers, query: new URLSearchParams(), port: 80 });
      }
    }
  }
  return out;
}

function sharded(table: RouteTable, shardBytes: number) {
  const planned = planStorage(table, { shardBytes });
  if (!planned.ok) throw new Error(planned.problem);
  const { root } = planned.plan;
  if (!isSharded(root.value)) throw new Error("expected a sharded table");
  // Through the parser, as the Worker reads them.
  const parsedRoot = parseStoredTable(JSON.parse(root.text));
  expect(parsedRoot.ok).toBe(true);
  const shards = planned.plan.shards.map((s) => ({ value: s.value(), text: s.text() }));
  return { root: root.value, shards, texts: shards.map((s) => s.text) };
}

describe("storage plan", () => {
  it("keeps a table under the shard size as one value", async ({ expect }) => {
    const table = await compiled();
    const planned = planStorage(table);
    expect(planned.ok && planned.plan.shards).toEqual([]);
    expect(planned.ok && planned.plan.root.value).toBe(table);
  });

  it("answers every request from its host's shard exactly as the whole table does", async ({ expect }) => {
    const table = await compiled();
    const { root, texts } = sharded(table, 10 * 1024);
    // More shards than an isolate keeps: some are dropped and read again.
    expect(root.shards.length).toBeGreaterThan(MAX_LOADED_SHARDS);
    const whole = prepareTable(table);
    const reads: number[] = [];
    const served = new ShardedServedTable(
      root,
      async (shard) => {
        reads.push(shard);
        return JSON.parse(texts[shard]!);
      },
      null,
    );
    // What a request is served by: the rule, and the prefix a rewrite replaces.
    const servedBy = (m: RouteMatch | null) => (m ? `${m.rule.id} ${m.prefix ?? ""}` : null);
    let matched = 0;
    for (const req of requests()) {
      const expected = servedBy(matchRequest(whole, req));
      const prepared = await served.forHost(req.protocol, req.host);
      const actual = prepared ? servedBy(matchRequest(prepared, req)) : null;
      expect(actual, `${req.host}${req.path} ${req.headers.get("x-shard") ?? ""}`).toBe(expected);
      if (expected) matched++;
    }
    expect(matched).toBeGreaterThan(200);
    // Each shard was read once while it stayed loaded; never more than the isolate's cap in memory.
    expect(served.inMemory().length).toBeLessThanOrEqual(MAX_LOADED_SHARDS);
    expect(new Set(reads).size).toBe(root.shards.length);
  });

  it("packs shards near the shard size, and copies shared rules and backends into each shard that needs them", async ({ expect }) => {
    const table = await compiled();
    const shardBytes = 24 * 1024;
    const { root, shards } = sharded(table, shardBytes);
    for (const [i, s] of root.shards.entries()) {
      expect(s.bytes, `shard ${i}`).toBeLessThanOrEqual(shardBytes * 1.1);
      expect(s.bytes).toBe(new TextEncoder().encode(shards[i]!.text).length);
    }
    // Every host key is in exactly one shard, and that shard holds it.
    const directory = root.directory.HTTP!;
    for (const [host, shard] of Object.entries(directory.exact)) expect(shards[shard]!.value.hosts.HTTP!.exact[host]).toBeDefined();
    for (const [suffix, shard] of Object.entries(directory.wildcard))
      expect(shards[shard]!.value.hosts.HTTP!.wildcard[suffix]).toBeDefined();
    expect(shards[directory.any!]!.value.hosts.HTTP!.any.length).toBeGreaterThan(0);
    // Rules of routes with two hostnames can land in two shards; each shard names only backends it holds.
    const ruleCopies = shards.reduce((n, s) => n + s.value.rules.length, 0);
    expect(ruleCopies).toBeGreaterThanOrEqual(table.rules.length);
    for (const s of shards) {
      for (const rule of s.value.rules) {
        for (const ref of rule.backendRefs) expect(s.value.backends[ref.backend!]).toBeDefined();
        for (const f of rule.filters) if (f.type === "RequestMirror") expect(s.value.backends[f.backend]).toBeDefined();
      }
    }
  });

  it("packs by the part lengths the compiler measured exactly as by its own, and each text is its value's canonical JSON", async ({
    expect,
  }) => {
    const result = await compileYaml(EDGE_YAML, { c1: manyHostsYaml(PORTS, ROUTES) });
    const { table, partLengths } = result;
    // The compiler's lengths are the JSON lengths of the table's own matches and rules.
    expect([...partLengths.matches]).toEqual(table.matches.map((m) => JSON.stringify(m).length));
    expect([...partLengths.rules]).toEqual(table.rules.map((r) => JSON.stringify(r).length));
    const fromCompile = planStorage(table, { shardBytes: 24 * 1024 }, result);
    const measuredHere = planStorage(table, { shardBytes: 24 * 1024 });
    if (!fromCompile.ok || !measuredHere.ok) throw new Error("expected both plans to fit");
    expect(fromCompile.plan.shards.length).toBeGreaterThan(3);
    expect(fromCompile.plan.root.text).toBe(measuredHere.plan.root.text);
    expect(fromCompile.plan.shards.map((s) => s.text())).toEqual(measuredHere.plan.shards.map((s) => s.text()));
    for (const shard of fromCompile.plan.shards) expect(shard.text()).toBe(canonicalJson(shard.value()));
  });

  it("joins shards back into a table that differs from the whole in nothing", async ({ expect }) => {
    const table = await compiled();
    const { root, shards } = sharded(table, 24 * 1024);
    const joined = joinShards(
      root as ShardedTable,
      shards.map((s) => s.value),
    );
    // Another version, so the diff compares every rule, backend and host instead of trusting the version.
    const diff = diffTables(joined, { ...table, version: "0".repeat(20) });
    expect(diff.rules).toEqual({ added: [], removed: [], changed: [], fields: {} });
    expect(diff.backends).toEqual({ added: [], removed: [], changed: [], fields: {} });
    expect(diff.hostsChanged).toBe(false);
    expect(diff.settings).toEqual([]);
    expect(diff.clusters).toEqual([]);
  });

  it("checks each shard against the value limit before any text is asked for, and the root records the sizes of the texts made later", async ({
    expect,
  }) => {
    const table = await compiled();
    const { root } = sharded(table, 4 * 1024);
    const largest = Math.max(...root.shards.map((s) => s.bytes));
    // At exactly the largest shard's size, a shard's bound is over the limit and its text is measured: it fits.
    const atLimit = planStorage(table, { shardBytes: 4 * 1024, valueLimitBytes: largest });
    expect(atLimit.ok).toBe(true);
    // A byte less, and that shard is refused before anything could be written.
    const under = planStorage(table, { shardBytes: 4 * 1024, valueLimitBytes: largest - 1 });
    expect(under.ok).toBe(false);
    if (!atLimit.ok) return;
    // The texts made as a push writes them (shards first), then the root: the root records their sizes, as it does
    // when it is read first.
    const texts = atLimit.plan.shards.map((s) => s.text());
    expect(JSON.parse(atLimit.plan.root.text)).toEqual(root);
    expect(root.shards.map((s) => s.bytes)).toEqual(texts.map((t) => new TextEncoder().encode(t).length));
  });

  it("never plans a shard or root over the value limit, whatever the limit, with text that JSON escapes or writes in 2-4 bytes", async ({
    expect,
  }) => {
    const table = await compiled();
    // Host names and rule ids that JSON escapes, and characters of 2, 3 and 4 bytes; in rules, most of the rule,
    // so that its UTF-8 is near three times its length.
    const odd = '"\\\u0001é中😀';
    const long = `${odd}${"中".repeat(300)}`;
    const exact = table.hosts.HTTP!.exact;
    const hostile: RouteTable = {
      ...table,
      hosts: { HTTP: { ...table.hosts.HTTP!, exact: Object.fromEntries(Object.entries(exact).map(([h, list]) => [`${h}${odd}`, list])) } },
      rules: table.rules.map((rule) => ({ ...rule, id: `${rule.id}${long}` })),
    };
    const utf8 = (text: string) => new TextEncoder().encode(text).length;
    const { root } = sharded(hostile, 4 * 1024);
    const largest = Math.max(...root.shards.map((s) => s.bytes));
    let planned = 0;
    for (let limit = largest - 1; limit <= 8 * largest; limit += Math.ceil(largest / 7)) {
      const plan = planStorage(hostile, { shardBytes: 4 * 1024, valueLimitBytes: limit });
      if (!plan.ok) {
        expect(limit, plan.problem).toBeLessThan(largest);
        continue;
      }
      planned++;
      // The shards as a push makes them, then the root.
      for (const shard of plan.plan.shards) expect(utf8(shard.text())).toBeLessThanOrEqual(limit);
      expect(utf8(plan.plan.root.text)).toBeLessThanOrEqual(limit);
    }
    expect(planned).toBeGreaterThan(10);
  });

  it("refuses a table with a host too large for one KV value, naming the host and the limit", async ({ expect }) => {
    const table = await compiled();
    const planned = planStorage(table, { shardBytes: 1024, valueLimitBytes: 3000 });
    expect(planned.ok).toBe(false);
    if (!planned.ok)
      expect(planned.problem).toMatch(
        /^table test is [\d.]+ KiB; host h0\.example alone needs [\d.]+ KiB \(9 rules, 3 backends\), and a Workers KV value holds at most 2\.9 KiB$/,
      );
    expect(() => planOrRefuse(table, { shardBytes: 1024, valueLimitBytes: 3000 })).toThrow(UserError);
  });
});
