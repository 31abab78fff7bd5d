/**
 * @module A small structural schema language and its validator, for what kedge reads besides the Gateway
 * API's own kinds (EdgeConfig, CompositeBackend, XBackend, BackendLBPolicy, the core kinds) and for the
 * Gateway API kinds' field names. Validation returns every problem, each with its field path: an unknown
 * field (as `kubectl apply --validate=strict` would refuse it), a wrong type, a value out of range.
 */

export type Schema =
  | { kind: "object"; fields: Record<string, Schema>; required?: readonly string[]; open?: boolean; note?: string }
  | { kind: "list"; items: Schema; min?: number; max?: number }
  | { kind: "map"; values: Schema; keyPattern?: RegExp; keyHint?: string }
  | { kind: "string"; enum?: readonly string[]; pattern?: RegExp; hint?: string; maxLength?: number }
  | { kind: "integer"; min?: number; max?: number }
  | { kind: "boolean" }
  | { kind: "any" };

/** A field path: `["spec", "rules", 0, "matches"]` is `spec.rules[0].matches`. */
export type FieldPath = readonly (string | number)[];

export interface SchemaProblem {
  path: FieldPath;
  reason: "UnknownField" | "UnsupportedValue";
  message: string;
}

export const obj = (fields: Record<string, Schema>, options: { required?: string[]; open?: boolean; note?: string } = {}): Schema => ({
  kind: "object",
  fields,
  ...options,
});
export const list = (items: Schema, options: { min?: number; max?: number } = {}): Schema => ({ kind: "list", items, ...options });
export const map = (values: Schema, keyPattern?: RegExp, keyHint?: string): Schema => ({ kind: "map", values, keyPattern, keyHint });
export const str = (options: { enum?: readonly string[]; pattern?: RegExp; hint?: string; maxLength?: number } = {}): Schema => ({
  kind: "string",
  ...options,
});
export const int = (min?: number, max?: number): Schema => ({ kind: "integer", min, max });
export const bool = (): Schema => ({ kind: "boolean" });
export const any = (): Schema => ({ kind: "any" });

/** `spec.rules[0].matches` */
export function fieldPathText(path: FieldPath): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
  return text;
}

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "a mapping" : typeof v;
const shown = (v: unknown): string => (typeof v === "object" && v !== null ? typeName(v) : JSON.stringify(v));

/** Appends every problem of `value` against `schema` (at `path`) to `problems`. */
export function validate(value: unknown, schema: Schema, path: FieldPath, problems: SchemaProblem[]): void {
  const fail = (message: string) => problems.push({ path, reason: "UnsupportedValue", message });
  switch (schema.kind) {
    case "any":
      return;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return void fail(`must be a mapping, not ${shown(value)}`);
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? [])
        if (record[key] === undefined) problems.push({ path: [...path, key], reason: "UnsupportedValue", message: "is required" });
      for (const [key, v] of Object.entries(record)) {
        const field = schema.fields[key];
        if (field) validate(v, field, [...path, key], problems);
        else if (!schema.open) {
          const near = nearest(key, Object.keys(schema.fields));
          problems.push({
            path: [...path, key],
            reason: "UnknownField",
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
      value.forEach((item, i) => validate(item, schema.items, [...path, i], problems));
      return;
    }
    case "map": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return void fail(`must be a mapping, not ${shown(value)}`);
      for (const [key, v] of Object.entries(value)) {
        if (schema.keyPattern && !schema.keyPattern.test(key))
          problems.push({
            path: [...path, key],
            reason: "UnsupportedValue",
            message: `key ${JSON.stringify(key)} must be ${schema.keyHint ?? schema.keyPattern.source}`,
          });
        validate(v, schema.values, [...path, key], problems);
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
      if (typeof value !== "number" || !Number.isInteger(value)) return void fail(`must be an integer, not ${shown(value)}`);
      if ((schema.min !== undefined && value < schema.min) || (schema.max !== undefined && value > schema.max))
        fail(`must be ${schema.min ?? "-∞"}–${schema.max ?? "∞"} (got ${value})`);
      return;
    case "boolean":
      if (typeof value !== "boolean") fail(`must be true or false, not ${shown(value)}`);
      return;
  }
}

/** A known name a couple of edits (or a letter case) away from `key`, for "did you mean". */
function nearest(key: string, names: string[]): string | undefined {
  const lower = key.toLowerCase();
  const exact = names.find((n) => n.toLowerCase() === lower);
  if (exact) return exact;
  const close = names.map((n) => ({ n, d: editDistance(n.toLowerCase(), lower) })).sort((a, b) => a.d - b.d)[0];
  return close && close.d <= (close.n.length >= 5 ? 2 : 1) ? close.n : undefined;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
