/**
 * @module Turns the text of one manifest file (multi-document YAML, JSON, or a `kind: List` as
 * `kubectl get -o yaml` prints it) into Manifests. A syntax error is fatal and names file and line.
 */
import { isNode, isSeq, LineCounter, parseAllDocuments } from "yaml";
import { fileLocator, type Locate } from "./locate";
import { isJsonObject, type JsonObject, type Manifest } from "./manifest";

/** A file that cannot be read as YAML/JSON: the sync stops before writing anything. */
export class ManifestSyntaxError extends Error {
  override name = "ManifestSyntaxError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`${file}:${line}:${column}: ${detail}`);
  }
}

/** An object without apiVersion/kind/metadata.name: skipped with a warning, not fatal. */
export interface SkippedDocument {
  file: string;
  line: number;
  message: string;
}

export interface ParsedFile {
  manifests: Manifest[];
  skipped: SkippedDocument[];
}

function toManifest(cluster: string, file: string, line: number, obj: JsonObject, locate?: Locate): Manifest | string {
  const { apiVersion, kind, metadata } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string") return "object has no apiVersion or kind";
  if (!isJsonObject(metadata) || metadata.name === undefined || metadata.name === null || metadata.name === "") {
    return `${kind} has no metadata.name`;
  }
  if (typeof metadata.name !== "string") return `${kind} metadata.name must be a string, not ${JSON.stringify(metadata.name)}`;
  const labels: Record<string, string> = {};
  if (isJsonObject(metadata.labels)) {
    for (const [k, v] of Object.entries(metadata.labels)) if (typeof v === "string") labels[k] = v;
  }
  return {
    cluster,
    file,
    line,
    apiVersion,
    kind,
    metadata: {
      name: metadata.name,
      namespace: typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : "default",
      labels,
      creationTimestamp: typeof metadata.creationTimestamp === "string" ? metadata.creationTimestamp : undefined,
      generation:
        Number.isSafeInteger(metadata.generation) && (metadata.generation as number) > 0 ? (metadata.generation as number) : undefined,
    },
    spec: isJsonObject(obj.spec) ? obj.spec : {},
    status: isJsonObject(obj.status) ? obj.status : {},
    raw: obj,
    ...(locate ? { locate } : {}),
  };
}

/**
 * `kind: List`, or a typed list as the API server writes it (`kind: ServiceList`, `HTTPRouteList`): its
 * items are the objects. An item without apiVersion or kind takes them from a typed list.
 */
function listItems(value: unknown): JsonObject[] | unknown[] | null {
  if (!isJsonObject(value) || typeof value.kind !== "string" || !value.kind.endsWith("List") || !Array.isArray(value.items)) return null;
  const itemKind = value.kind === "List" ? undefined : value.kind.slice(0, -"List".length);
  if (!itemKind) return value.items;
  return value.items.map((item) =>
    isJsonObject(item)
      ? { ...(typeof value.apiVersion === "string" ? { apiVersion: value.apiVersion } : {}), kind: itemKind, ...item }
      : item,
  );
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * The line of each object element of the root object's `items` array, found by one pass over JSON text
 * (JSON.parse gives no positions; the YAML parser would, at ten times the cost on big `kubectl` dumps).
 */
function jsonListItemLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let stringStart = 0;
  let stringEnd = 0;
  let rootKey = "";
  let inItems = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) line++;
    else if (ch === 34) {
      // A string is skipped whole: its closing quote is the first one after an even run of backslashes,
      // and it holds no line break (JSON strings cannot).
      stringStart = i + 1;
      let end = text.indexOf('"', stringStart);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break; // unterminated: JSON.parse accepted the text, so never here
      stringEnd = end; // not sliced here: only a root key's text is ever needed
      i = end;
    } else if (ch === 58 && depth === 1) {
      rootKey = text.slice(stringStart, stringEnd);
    } else if (ch === 123 || ch === 91) {
      if (inItems && depth === 2 && ch === 123) lines.push(line);
      depth++;
      if (ch === 91 && depth === 2 && rootKey === "items") inItems = true;
    } else if (ch === 125 || ch === 93) {
      depth--;
      if (depth === 1) inItems = false;
    }
  }
  return lines;
}

/** JSON files take the fast path; one that is not valid JSON goes through the YAML parser for a precise error. */
function parseJsonFile(cluster: string, file: string, text: string): ParsedFile | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const result: ParsedFile = { manifests: [], skipped: [] };
  const locator = fileLocator(text);
  const add = (obj: unknown, line: number, item?: number) => {
    const manifest = isJsonObject(obj) ? toManifest(cluster, file, line, obj, locator(0, item)) : "document is not a JSON object";
    if (typeof manifest === "string") result.skipped.push({ file, line, message: manifest });
    else result.manifests.push(manifest);
  };
  const start = text.slice(0, text.search(/\S|$/)).split("\n").length;
  const items = listItems(value);
  if (items) {
    const lines = jsonListItemLines(text);
    items.forEach((item, i) => add(item, lines.length === items.length ? (lines[i] ?? start) : start, i));
  } else {
    add(value, start);
  }
  return result;
}

/** How many alias expansions one document may make; more is refused as a resource-exhaustion attack. */
const MAX_ALIAS_COUNT = 100;

/** Parses one file's text. Throws ManifestSyntaxError on a syntax error; everything else is data. */
export function parseManifestFile(cluster: string, file: string, text: string): ParsedFile {
  if (file.endsWith(".json")) {
    const parsed = parseJsonFile(cluster, file, text);
    if (parsed) return parsed;
  }
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const result: ParsedFile = { manifests: [], skipped: [] };
  const locator = fileLocator(text);
  for (const [index, doc] of list.entries()) {
    const error = doc.errors[0];
    if (error) {
      const pos = lineCounter.linePos(error.pos[0]);
      throw new ManifestSyntaxError(file, pos.line, pos.col, error.message.split("\n")[0] ?? error.message);
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      // yaml refuses a document whose aliases expand too far (a "billion laughs" file).
      const pos = lineCounter.linePos(doc.range[0]);
      throw new ManifestSyntaxError(file, pos.line, pos.col, error instanceof Error ? error.message : String(error));
    }
    if (value === null || value === undefined) continue; // an empty document between `---`
    // The object's first line, not the `---` that opens its document.
    const start = isNode(doc.contents) && doc.contents.range ? doc.contents.range[0] : doc.range[0];
    const line = lineCounter.linePos(start).line;
    const add = (obj: unknown, at: number, item?: number) => {
      if (!isJsonObject(obj)) {
        result.skipped.push({ file, line: at, message: "document is not a YAML mapping" });
        return;
      }
      const manifest = toManifest(cluster, file, at, obj, locator(index, item));
      if (typeof manifest === "string") result.skipped.push({ file, line: at, message: manifest });
      else result.manifests.push(manifest);
    };
    const items = listItems(value);
    if (items) {
      // kubectl get -o yaml: the items of a List are the objects, each at its own line.
      const itemsNode = doc.get("items", true);
      items.forEach((item, i) => {
        const node = isSeq(itemsNode) ? itemsNode.items[i] : undefined;
        add(item, isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : line, i);
      });
    } else {
      add(value, line);
    }
  }
  return result;
}
