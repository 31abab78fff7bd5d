/**
 * The table's one schema at the KV boundary: the compiler's output holds to it strictly (no field it does
 * not name), every field it names is set by the every-field config, and the Worker's parser refuses a table
 * in which any one leaf has the wrong type, so no field the Worker reads goes unchecked.
 */
import { describe, it } from "vitest";
import { parse } from "yaml";
import { parseEdgeConfig } from "../../src/compile/input/edge-config";
import { loadConfig } from "../../scripts/config/load-config";
import { compileRouteTable } from "../../src/compile/compile-route-table";
import { planStorage } from "../../src/table/shard-table";
import { parseRouteTable, parseShardedTable } from "../../src/table/parse-route-table";
import type { RouteTable } from "../../src/table/route-table";
import { ROUTE_TABLE_SCHEMA, SHARDED_TABLE_SCHEMA } from "../../src/table/route-table-schema";
import { fieldPathText, firstProblem, type Schema } from "../../src/table/structural-schema";
import { compileYaml } from "../support/compile-fixture";
import { EVERY_FIELD_CLUSTERS, EVERY_FIELD_EDGE, EVERY_FIELD_STALE_SINCE } from "../support/every-field-config";

type Path = (string | number)[];

/** Every leaf (a string, number or boolean) of a JSON value, with its path. */
function leaves(value: unknown, path: Path = []): { path: Path; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [{ path, value }];
}

/** The same path with map keys and list indexes as `*` and `[]`, as the schema names fields (unions by the value's variant). */
function shape(root: unknown, path: Path, schema: Schema): string {
  const parts: string[] = [];
  let at: Schema | undefined = schema;
  let value = root as Record<string | number, unknown>;
  for (const part of path) {
    if (at?.kind === "union") at = at.variants[String(value[at.key])];
    if (!at) break;
    if (at.kind === "list") {
      parts.push("[]");
      at = at.items;
    } else if (at.kind === "map") {
      parts.push(".*");
      at = at.values;
    } else if (at.kind === "object") {
      parts.push(`.${part}`);
      at = at.fields[String(part)];
    }
    value = value[part] as Record<string | number, unknown>;
  }
  return parts.join("");
}

/** Every field path the schema names (unions by variant), in the shape of `shape`. */
function schemaFields(schema: Schema, prefix = ""): string[] {
  switch (schema.kind) {
    case "object":
      return Object.entries(schema.fields).flatMap(([k, v]) => schemaFields(v, `${prefix}.${k}`));
    case "list":
      return schemaFields(schema.items, `${prefix}[]`);
    case "map":
      return schemaFields(schema.values, `${prefix}.*`);
    case "union":
      return [...new Set(Object.values(schema.variants).flatMap((v) => schemaFields(v, prefix)))];
    default:
      return [prefix];
  }
}

/** A value of another JSON type than `value`. */
const wrongType = (value: unknown): unknown => (typeof value === "string" ? 7 : typeof value === "number" ? "7" : "yes");

function setAt(root: unknown, path: Path, value: unknown): void {
  let at = root as Record<string | number, unknown>;
  for (const part of path.slice(0, -1)) at = at[part] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
}

async function everyFieldTable(): Promise<RouteTable> {
  const edge = parseEdgeConfig(parse(EVERY_FIELD_EDGE), "kedge.yaml");
  const clusters = edge.clusters.map((c) => (c.name === "vpc" ? { ...c, staleSince: EVERY_FIELD_STALE_SINCE } : c));
  return JSON.parse(JSON.stringify((await compileYaml({ ...edge, clusters }, EVERY_FIELD_CLUSTERS)).table)) as RouteTable;
}

describe("the table schema at the KV boundary", () => {
  it("holds the compiler's output strictly: the example config's table and the every-field table", async ({ expect }) => {
    const loaded = loadConfig("config");
    const example = (await compileRouteTable(loaded.edge, loaded.manifests)).table;
    for (const table of [JSON.parse(JSON.stringify(example)), await everyFieldTable()]) {
      const problem = firstProblem(table, ROUTE_TABLE_SCHEMA, true);
      expect(problem && `${fieldPathText(problem.path)} ${problem.message}`).toBeNull();
      expect(parseRouteTable(table).ok).toBe(true);
    }
  });

  it("every field the schema names is set in the every-field table (so each is mutated below)", async ({ expect }) => {
    const table = await everyFieldTable();
    // A backendRef's filters have the rule's filter schema: a kind seen in either is seen for both.
    const sameFilters = (field: string) => field.replace(".rules[].backendRefs[].filters[]", ".rules[].filters[]");
    const seen = new Set(leaves(table).map((l) => sameFilters(shape(table, l.path, ROUTE_TABLE_SCHEMA))));
    const missing = schemaFields(ROUTE_TABLE_SCHEMA).filter((field) => !seen.has(sameFilters(field)));
    expect(missing).toEqual([]);
  });

  it("refuses the table when any one leaf has the wrong type", async ({ expect }) => {
    const table = await everyFieldTable();
    const all = leaves(table);
    expect(all.length).toBeGreaterThan(200);
    const accepted: string[] = [];
    for (const leaf of all) {
      const mutated = structuredClone(table);
      setAt(mutated, leaf.path, wrongType(leaf.value));
      if (parseRouteTable(mutated).ok) accepted.push(fieldPathText(leaf.path));
    }
    expect(accepted).toEqual([]);
  });

  it("holds a sharded table's root and its shards to their schemas", async ({ expect }) => {
    const table = await everyFieldTable();
    const planned = planStorage(table, { shardBytes: 2048 });
    if (!planned.ok) throw new Error(planned.problem);
    const { root, shards } = planned.plan;
    expect(shards.length).toBeGreaterThan(1);
    expect(firstProblem(JSON.parse(root.text), SHARDED_TABLE_SCHEMA, true)).toBeNull();
    expect(parseShardedTable(JSON.parse(root.text)).ok).toBe(true);
    for (const shard of shards) expect(firstProblem(JSON.parse(shard.text()), ROUTE_TABLE_SCHEMA, true)).toBeNull();
  });
});
