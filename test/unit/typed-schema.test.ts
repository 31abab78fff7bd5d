/**
 * A type and its schema cannot drift: `tsc` (npm run typecheck) refuses every schema below that disagrees with
 * its type (each `@ts-expect-error` fails the typecheck if the line compiles), and what passes a schema is its
 * type without a cast.
 */
import { describe, it } from "vitest";
import { conforms, int, list, literal, obj, opt, readWithDefaults, str, union, withDefault } from "../../src/table/structural-schema";

interface Widget {
  name: string;
  size?: number;
}

describe("typed schemas", () => {
  it("refuses at compile time a schema that leaves out, adds, retypes or mis-marks a field", ({ expect }) => {
    const good = obj<Widget>({ name: str(), size: opt(int(0)) });
    // @ts-expect-error an optional field of the type is missing from the schema
    obj<Widget>({ name: str() });
    // @ts-expect-error the schema names a field the type does not have
    obj<Widget>({ name: str(), size: opt(int()), colour: opt(str()) });
    // @ts-expect-error an optional field must be marked opt
    obj<Widget>({ name: str(), size: int() });
    // @ts-expect-error a required field must not be marked opt
    obj<Widget>({ name: opt(str()), size: opt(int()) });
    // @ts-expect-error a field of another type
    obj<Widget>({ name: int(), size: opt(int()) });
    // @ts-expect-error a union needs a variant per tag
    union<{ type: "A"; a: string } | { type: "B" }, "type">("type", { A: obj({ type: literal("A"), a: str() }) });
    expect(good.kind === "object" && good.required).toEqual(["name"]);
  });

  it("narrows a value that conforms to its type, and fills in defaults when it reads one", ({ expect }) => {
    const schema = obj<{ name: string; tags: string[] }>({ name: str(), tags: withDefault(list(str()), []) });
    const value: unknown = { name: "a", tags: ["x"] };
    if (conforms(value, schema)) expect(value.tags.length).toBe(1);
    else expect.unreachable("the value conforms");
    expect(readWithDefaults({ name: "b" }, schema)).toEqual({ ok: true, value: { name: "b", tags: [] } });
    expect(readWithDefaults({ name: 1 }, schema)).toMatchObject({ ok: false, problems: [{ path: ["name"] }] });
  });
});
