/**
 * @module A small typed schema language and its validators, shared by both sides. Each contract is stated
 * once, as a TypeScript type; its schema is written against that type (`obj<RouteTable>({...})`), whose
 * fields are a mapped type over the type's keys, so a field added to, removed from or retyped in the type
 * alone fails `tsc`, as does a required field marked optional or the reverse. The sync checks what kedge
 * reads besides the Gateway API's own kinds (EdgeConfig, CompositeBackend, XBackend, BackendLBPolicy, the
 * core kinds) and the Gateway API kinds' field names with `validate`, which returns every problem with its
 * field path (an unknown field, as `kubectl apply --validate=strict` would refuse it, a wrong type, a value
 * out of range); the Worker checks every table it reads from KV with `firstProblem`, which stops at the first
 * and allocates nothing on the way (a table has a lot of fields). `conforms` is the type guard both use:
 * a value that passes is its schema's type, with no cast at the caller.
 */
import { nearest } from "./did-you-mean";
import { REASON } from "./reasons";

declare const VALUE: unique symbol;

/** What a schema is at run time: plain data that the validators and the JSON Schema writer walk. */
export type SchemaNode = (
  | { kind: "object"; fields: Record<string, Schema>; required?: readonly string[]; open?: boolean; note?: string }
  | { kind: "list"; items: Schema; min?: number; max?: number }
  | { kind: "map"; values: Schema; keyPattern?: RegExp; keyHint?: string }
  | { kind: "string"; enum?: readonly string[]; pattern?: RegExp; hint?: string; maxLength?: number }
  | { kind: "integer"; min?: number; max?: number }
  | { kind: "number"; min?: number; max?: number }
  | { kind: "boolean"; only?: boolean }
  /** One of several object shapes, told apart by the string at `key` (a discriminated union). */
  | { kind: "union"; key: string; variants: Record<string, Schema> }
  | { kind: "any" }
) & {
  /** What a field left out reads as (applyDefaults); documented in the JSON Schema. */
  default?: unknown;
};

/**
 * A schema of values of type `T`. `T` exists only for the compiler (a phantom field): the builders below
 * tie each schema to the type it checks, and `conforms` turns a checked value into that type.
 */
export type Schema<T = unknown> = SchemaNode & { readonly [VALUE]?: T };

/** The schema of a field that its object may leave out (made by `opt`). */
export type Optional<T> = Schema<T> & { readonly optional: true };
const isOptional = (schema: Schema): boolean => "optional" in schema && schema.optional === true;
/** The schema of a field that must be there (or that has a default, which fills it in). */
type Present<T> = Schema<T> & { readonly optional?: false };

/**
 * The field schemas of an object type, one per key (an index signature aside: an open object's other
 * fields are not checked): an optional key takes an `opt(...)` schema of its type, a required key a plain one.
 */
export type Fields<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]-?: object extends Pick<T, K>
    ? Optional<Exclude<T[K], undefined>>
    : Present<T[K]>;
};

/** What a default may leave out: a default is filled in before the defaults inside it. */
type DefaultOf<T> = T extends readonly (infer I)[] ? readonly DefaultOf<I>[] : T extends object ? { [K in keyof T]?: DefaultOf<T[K]> } : T;

/** A field path: `["spec", "rules", 0, "matches"]` is `spec.rules[0].matches`. */
export type FieldPath = readonly (string | number)[];

export interface SchemaProblem {
  path: FieldPath;
  reason: typeof REASON.UnknownField | typeof REASON.UnsupportedValue;
  message: string;
}

interface StringOptions {
  pattern?: RegExp;
  hint?: string;
  maxLength?: number;
}

/** An object of type `T`: every field of the type, each with its schema (`opt` for the optional ones). */
export function obj<T>(fields: Fields<T>, options: { open?: boolean; note?: string } = {}): Schema<T> {
  const all: Record<string, Schema> = fields;
  const required = Object.keys(all).filter((key) => !isOptional(all[key]!) && all[key]!.default === undefined);
  return { kind: "object", fields: all, ...(required.length > 0 ? { required } : {}), ...options };
}
/** The same schema, for a field that may be left out. */
export const opt = <T>(schema: Schema<T>): Optional<T> => ({ ...schema, optional: true });
/** A list of `items`; with `min: 1`, a list that has at least one. */
export function list<T>(items: Schema<T>, options: { min: 1; max?: number }): Schema<[T, ...T[]]>;
export function list<T>(items: Schema<T>, options?: { min?: number; max?: number }): Schema<T[]>;
export function list<T>(items: Schema<T>, options: { min?: number; max?: number } = {}): Schema<T[]> {
  return { kind: "list", items, ...options };
}
/** A mapping with free keys (matching `keyPattern` when given), each value of `values`. */
export const map = <T>(values: Schema<T>, keyPattern?: RegExp, keyHint?: string): Schema<Record<string, T>> => ({
  kind: "map",
  values,
  keyPattern,
  keyHint,
});
/** A string; with `enum`, one of those strings (and of their union type). */
export function str<const E extends readonly string[]>(options: StringOptions & { enum: E }): Schema<E[number]>;
export function str(options?: StringOptions): Schema<string>;
export function str(options: StringOptions & { enum?: readonly string[] } = {}): Schema<string> {
  return { kind: "string", ...options };
}
/** Exactly this string: the tag of a union's variant, or a constant field. */
export const literal = <const V extends string>(value: V): Schema<V> => ({ kind: "string", enum: [value] });
export const int = (min?: number, max?: number): Schema<number> => ({ kind: "integer", min, max });
/** Exactly this integer (a schema version). */
export const intLiteral = <const V extends number>(value: V): Schema<V> => ({ kind: "integer", min: value, max: value });
export const num = (min?: number, max?: number): Schema<number> => ({ kind: "number", min, max });
/** A boolean; with `only`, that value alone (a flag that is set or absent). */
export function bool<const V extends boolean>(only: V): Schema<V>;
export function bool(): Schema<boolean>;
export function bool(only?: boolean): Schema<boolean> {
  return { kind: "boolean", ...(only === undefined ? {} : { only }) };
}
/**
 * A discriminated union of object types, told apart by the string at `key`: one variant schema per tag,
 * each of its own member of the union.
 */
export const union = <T, K extends keyof T & string>(
  key: K,
  variants: { [V in T[K] & string]: Schema<Extract<T, Record<K, V>>> },
): Schema<T> => ({ kind: "union", key, variants });
/** Anything (a value kedge passes on or leaves to another check). */
export const any = (): Schema<unknown> => ({ kind: "any" });
/** The same schema, with what the field reads as when it is left out. */
export const withDefault = <T>(schema: Schema<T>, value: DefaultOf<T>): Schema<T> => ({ ...schema, default: value });

/** Whether `value` is its schema's type: every field the schema names checked (see firstProblem). */
export const conforms = <T>(value: unknown, schema: Schema<T>, strict = false): value is T => firstProblem(value, schema, strict) === null;

/**
 * Reads a value against its schema in one pass: every problem at once, or the value with every default
 * filled in, as its type.
 */
export function readWithDefaults<T>(value: unknown, schema: Schema<T>): { ok: true; value: T } | { ok: false; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  validate(value, schema, [], problems);
  if (problems.length > 0) return { ok: false, problems };
  const filled = applyDefaults(value, schema);
  if (conforms(filled, schema)) return { ok: true, value: filled };
  // A default that does not hold to its own schema: kedge's mistake, said as the field it fills.
  validate(filled, schema, [], problems);
  return { ok: false, problems };
}

/**
 * `value` (already valid against `schema`) with every left-out field that has a default filled in, inside
 * objects, list items and map values; `value` itself is not changed.
 */
export function applyDefaults(value: unknown, schema: Schema): unknown {
  const filled = value === undefined && schema.default !== undefined ? structuredClone(schema.default) : value;
  if (filled === undefined || filled === null) return filled;
  switch (schema.kind) {
    case "object": {
      const record = filled as Record<string, unknown>;
      const out: Record<string, unknown> = { ...record };
      for (const [key, field] of Object.entries(schema.fields)) {
        const v = applyDefaults(record[key], field);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case "list":
      return (filled as unknown[]).map((item) => applyDefaults(item, schema.items));
    case "map":
      return Object.fromEntries(Object.entries(filled as Record<string, unknown>).map(([k, v]) => [k, applyDefaults(v, schema.values)]));
    default:
      return filled;
  }
}

/** `spec.rules[0].matches` */
export function fieldPathText(path: FieldPath): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
  return text;
}

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "a mapping" : typeof v;
const shown = (v: unknown): string => (typeof v === "object" && v !== null ? typeName(v) : JSON.stringify(v));

/**
 * Appends every problem of `value` against `schema` (at `path`) to `problems`. Most values have none: that is
 * found first by `firstProblem`, which allocates nothing, and only a value with a problem is walked again to name
 * each (the walk that names them builds a path per field: 100,000 routes ran 60 young-generation collections in
 * the schema stage, now 19).
 */
export function validate(value: unknown, schema: Schema, path: FieldPath, problems: SchemaProblem[]): void {
  if (firstProblem(value, schema, true) === null) return;
  collectProblems(value, schema, path, problems);
}

function collectProblems(value: unknown, schema: Schema, path: FieldPath, problems: SchemaProblem[]): void {
  const fail = (message: string) => problems.push({ path, reason: REASON.UnsupportedValue, message });
  switch (schema.kind) {
    case "any":
      return;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return void fail(`must be a mapping, not ${shown(value)}`);
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? [])
        if (record[key] === undefined) problems.push({ path: [...path, key], reason: REASON.UnsupportedValue, message: "is required" });
      for (const [key, v] of Object.entries(record)) {
        const field = schema.fields[key];
        if (field) collectProblems(v, field, [...path, key], problems);
        else if (!schema.open) {
          const near = nearest(key, Object.keys(schema.fields));
          problems.push({
            path: [...path, key],
            reason: REASON.UnknownField,
            message: `unknown field${near ? ` (did you mean ${near}?)` : ""}`,
          });
        }
      }
      return;
    }
    case "list": {
      if (!Array.isArray(value)) return void fail(`must be a list, not ${shown(value)}`);
      if (schema.min !== undefined && value.length < schema.min)
        fail(`must have at least ${schema.min} item${schema.min === 1 ? "" : "s"}`);
      if (schema.max !== undefined && value.length > schema.max) fail(`must have at most ${schema.max} items`);
      value.forEach((item, i) => collectProblems(item, schema.items, [...path, i], problems));
      return;
    }
    case "map": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return void fail(`must be a mapping, not ${shown(value)}`);
      for (const [key, v] of Object.entries(value)) {
        if (schema.keyPattern && !schema.keyPattern.test(key))
          problems.push({
            path: [...path, key],
            reason: REASON.UnsupportedValue,
            message: `key ${JSON.stringify(key)} must be ${schema.keyHint ?? schema.keyPattern.source}`,
          });
        collectProblems(v, schema.values, [...path, key], problems);
      }
      return;
    }
    case "string":
      if (typeof value !== "string") return void fail(`must be a string, not ${shown(value)}`);
      if (schema.enum && !schema.enum.includes(value))
        return void fail(`must be one of ${schema.enum.join(", ")} (got ${JSON.stringify(value)})`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        return void fail(`must be at most ${schema.maxLength} characters`);
      if (schema.pattern && !schema.pattern.test(value))
        fail(`${JSON.stringify(value)} must be ${schema.hint ?? `like ${schema.pattern.source}`}`);
      return;
    case "integer":
    case "number":
    case "boolean":
    case "union": {
      const problem = firstProblem(value, schema);
      if (problem) problems.push({ path: [...path, ...problem.path], reason: REASON.UnsupportedValue, message: problem.message });
      return;
    }
  }
}

/**
 * The first problem of `value` against `schema`, with its path inside `value`, or null. What the Worker runs
 * on every table it reads: no path is built until a problem is found. With `strict`, a field an object's
 * schema does not name is a problem too (the tests hold the compiler's output to the schema that way); without,
 * it is ignored, so an older Worker reads a table a newer sync wrote.
 */
export function firstProblem(value: unknown, schema: Schema, strict = false): Problem | null {
  switch (schema.kind) {
    case "any":
      return null;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return here(`must be a mapping, not ${shown(value)}`);
      const record = value as Record<string, unknown>;
      const required = schema.required;
      if (required)
        for (let i = 0; i < required.length; i++)
          if (record[required[i]!] === undefined) return { path: [required[i]!], message: "is required" };
      const fields = schema.fields;
      for (const key in record) {
        const v = record[key];
        if (v === undefined) continue;
        const field = fields[key];
        if (field === undefined) {
          if (strict && !schema.open) return { path: [key], message: "unknown field" };
          continue;
        }
        // Leaves are checked here, without a call: most of a table's fields are strings and numbers.
        if (
          field.kind === "string" &&
          typeof v === "string" &&
          field.enum === undefined &&
          field.pattern === undefined &&
          field.maxLength === undefined
        )
          continue;
        const inner = firstProblem(v, field, strict);
        if (inner) return within(key, inner);
      }
      return null;
    }
    case "list": {
      if (!Array.isArray(value)) return here(`must be a list, not ${shown(value)}`);
      if (schema.min !== undefined && value.length < schema.min) return here(`must have at least ${schema.min} items`);
      if (schema.max !== undefined && value.length > schema.max) return here(`must have at most ${schema.max} items`);
      const items = schema.items;
      for (let i = 0; i < value.length; i++) {
        const inner = firstProblem(value[i], items, strict);
        if (inner) return within(i, inner);
      }
      return null;
    }
    case "map": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return here(`must be a mapping, not ${shown(value)}`);
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (schema.keyPattern && !schema.keyPattern.test(key))
          return { path: [key], message: `key must be ${schema.keyHint ?? schema.keyPattern.source}` };
        const inner = firstProblem(record[key], schema.values, strict);
        if (inner) return within(key, inner);
      }
      return null;
    }
    case "string":
      if (typeof value !== "string") return here(`must be a string, not ${shown(value)}`);
      if (schema.enum && !schema.enum.includes(value))
        return here(`must be one of ${schema.enum.join(", ")} (got ${JSON.stringify(value)})`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return here(`must be at most ${schema.maxLength} characters`);
      if (schema.pattern && !schema.pattern.test(value))
        return here(`${JSON.stringify(value)} must be ${schema.hint ?? `like ${schema.pattern.source}`}`);
      return null;
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value) || (schema.kind === "integer" && !Number.isInteger(value)))
        return here(`must be ${schema.kind === "integer" ? "an integer" : "a number"}, not ${shown(value)}`);
      if ((schema.min !== undefined && value < schema.min) || (schema.max !== undefined && value > schema.max))
        return here(`must be ${schema.min ?? "-∞"}–${schema.max ?? "∞"} (got ${value})`);
      return null;
    case "boolean":
      if (typeof value !== "boolean") return here(`must be true or false, not ${shown(value)}`);
      if (schema.only !== undefined && value !== schema.only) return here(`must be ${schema.only} when set`);
      return null;
    case "union": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return here(`must be a mapping, not ${shown(value)}`);
      const tag = (value as Record<string, unknown>)[schema.key];
      const variant = typeof tag === "string" ? schema.variants[tag] : undefined;
      if (!variant) return { path: [schema.key], message: `must be one of ${Object.keys(schema.variants).join(", ")} (got ${shown(tag)})` };
      return firstProblem(value, variant, strict);
    }
  }
}

/** A problem found by firstProblem: where inside the value, and what. */
export interface Problem {
  path: (string | number)[];
  message: string;
}

const here = (message: string): Problem => ({ path: [], message });
const within = (part: string | number, inner: Problem): Problem => ({ path: [part, ...inner.path], message: inner.message });

/** The schema as a JSON Schema (draft 2020-12), for editors. */
export function toJsonSchema(schema: Schema): Record<string, unknown> {
  const shape = jsonShape(schema);
  return schema.default === undefined ? shape : { ...shape, default: schema.default };
}

function jsonShape(schema: Schema): Record<string, unknown> {
  switch (schema.kind) {
    case "object":
      return {
        type: "object",
        properties: Object.fromEntries(Object.entries(schema.fields).map(([k, v]) => [k, toJsonSchema(v)])),
        ...(schema.required?.length ? { required: schema.required } : {}),
        ...(schema.open ? {} : { additionalProperties: false }),
        ...(schema.note ? { description: schema.note } : {}),
      };
    case "list":
      return {
        type: "array",
        items: toJsonSchema(schema.items),
        ...(schema.min ? { minItems: schema.min } : {}),
        ...(schema.max ? { maxItems: schema.max } : {}),
      };
    case "map":
      return {
        type: "object",
        additionalProperties: toJsonSchema(schema.values),
        ...(schema.keyPattern ? { propertyNames: { pattern: schema.keyPattern.source } } : {}),
      };
    case "string":
      return {
        type: "string",
        ...(schema.enum ? { enum: schema.enum } : {}),
        ...(schema.pattern ? { pattern: schema.pattern.source } : {}),
        ...(schema.hint ? { description: schema.hint } : {}),
        ...(schema.maxLength ? { maxLength: schema.maxLength } : {}),
      };
    case "integer":
    case "number":
      return {
        type: schema.kind,
        ...(schema.min !== undefined ? { minimum: schema.min } : {}),
        ...(schema.max !== undefined ? { maximum: schema.max } : {}),
      };
    case "boolean":
      return { type: "boolean", ...(schema.only !== undefined ? { const: schema.only } : {}) };
    case "union":
      return { oneOf: Object.values(schema.variants).map(toJsonSchema) };
    case "any":
      return {};
  }
}
