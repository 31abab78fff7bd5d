/**
 * @module Turns the text of one manifest file (multi-document YAML, JSON, or a `kind: List` as
 * `kubectl get -o yaml` prints it) into Manifests. A syntax error is fatal and names file and line.
 *
 * Read at the speed of a bare parse, since a real cluster's dump is 30-100 MB: JSON with JSON.parse, YAML with
 * js-yaml (a plain-object parser, several times faster than a document model), each object's line and text
 * found by one pass over the lines (text-layout.ts), and a field's position parsed from that object's text only
 * when a diagnostic asks. A file that text pass cannot lay out (flow-style lists, anchors and aliases, tags),
 * or that js-yaml refuses, is read by the `yaml` document model as before: exact errors, alias limits.
 */
import jsyaml from "js-yaml";
import { isNode, isSeq, LineCounter, parseAllDocuments } from "yaml";
import { fileLocator, type Locate, pieceLocator, type TextSource } from "./locate";
import { jsonListItems, yamlLayout } from "./text-layout";
import { isJsonObject, type JsonObject, type Manifest, type ObjectMeta } from "./manifest";

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

/**
 * The labels and status of an object that has none: one frozen empty object shared by all of them, not one each
 * (a 100k-route config holds 200k of them otherwise; nothing writes to either).
 */
const NONE: Readonly<Record<string, never>> = Object.freeze({});

/** An object's labels with string values (the others cannot select anything). */
function stringLabels(raw: unknown): Record<string, string> {
  const labels = isJsonObject(raw) ? Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string") : [];
  return labels.length > 0 ? Object.fromEntries(labels) : NONE;
}

function toManifest(cluster: string, file: string, line: number, obj: JsonObject, locate?: Locate): Manifest | string {
  const { apiVersion, kind, metadata } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string") return "object has no apiVersion or kind";
  if (!isJsonObject(metadata) || metadata.name === undefined || metadata.name === null || metadata.name === "") {
    return `${kind} has no metadata.name`;
  }
  if (typeof metadata.name !== "string") return `${kind} metadata.name must be a string, not ${JSON.stringify(metadata.name)}`;
  const meta: ObjectMeta = {
    name: metadata.name,
    namespace: typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : "default",
    labels: stringLabels(metadata.labels),
    creationTimestamp: typeof metadata.creationTimestamp === "string" ? metadata.creationTimestamp : undefined,
    generation:
      Number.isSafeInteger(metadata.generation) && (metadata.generation as number) > 0 ? (metadata.generation as number) : undefined,
  };
  // The object keeps the metadata kedge reads, not all it came with: what a cluster prints (managedFields, the
  // last-applied annotation: together often more than the spec) is let go as soon as the object is read.
  obj.metadata = meta;
  return {
    cluster,
    file,
    line,
    apiVersion,
    kind,
    metadata: meta,
    spec: isJsonObject(obj.spec) ? obj.spec : {},
    status: isJsonObject(obj.status) ? obj.status : NONE,
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

/** JSON files take the fast path; one that is not valid JSON goes through the YAML parser for a precise error. */
function parseJsonFile(cluster: string, file: string, text: string, source: TextSource): ParsedFile | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const result: ParsedFile = { manifests: [], skipped: [] };
  const add = (obj: unknown, line: number, locate: () => Locate) => {
    const manifest = isJsonObject(obj) ? toManifest(cluster, file, line, obj, locate()) : "document is not a JSON object";
    if (typeof manifest === "string") result.skipped.push({ file, line, message: manifest });
    else result.manifests.push(manifest);
  };
  const start = text.slice(0, text.search(/\S|$/)).split("\n").length;
  const items = listItems(value);
  if (items) {
    const spans = jsonListItems(text);
    const whole = spans.length === items.length ? undefined : fileLocator(source);
    items.forEach((item, i) => {
      const span = spans[i];
      add(item, whole ? start : span!.line, () => (whole ? whole(0, i) : pieceLocator(source, span!, false)));
    });
  } else {
    add(value, start, () => fileLocator(source)(0));
  }
  return result;
}

/** Text the line pass lays out exactly: no anchors, aliases, tags or flow-style documents to trip over. */
const FAST_YAML_UNSAFE = /(^|[\s[{,:-])[&*!][^\s,\]}]/m;

/**
 * YAML read with js-yaml: every object's line and text from the line pass. Null when the pass and the parser
 * disagree, or js-yaml refuses the text: the `yaml` document model then reads it (and words any error).
 */
function parseYamlFast(cluster: string, file: string, text: string, source: TextSource): ParsedFile | null {
  if (FAST_YAML_UNSAFE.test(text)) return null;
  let docs: unknown[];
  try {
    docs = jsyaml.loadAll(text, null, { schema: jsyaml.CORE_SCHEMA });
  } catch {
    return null;
  }
  const layout = yamlLayout(text);
  if (layout.length !== docs.length) return null;
  const result: ParsedFile = { manifests: [], skipped: [] };
  for (const [index, value] of docs.entries()) {
    if (value === null || value === undefined) continue; // an empty document between `---`
    const doc = layout[index]!;
    const add = (obj: unknown, line: number, locate: () => Locate) => {
      if (!isJsonObject(obj)) return void result.skipped.push({ file, line, message: "document is not a YAML mapping" });
      const manifest = toManifest(cluster, file, line, obj, locate());
      if (typeof manifest === "string") result.skipped.push({ file, line, message: manifest });
      else result.manifests.push(manifest);
    };
    const items = listItems(value);
    if (!items) {
      add(value, doc.line, () => pieceLocator(source, doc, false));
      continue;
    }
    // kubectl get -o yaml: the items of a List are the objects, each at its own line (a list the line pass
    // cannot lay out, in flow style say, is read by the document model, which knows every item's line).
    const spans = doc.items;
    if (spans?.length !== items.length) return null;
    items.forEach((item, i) => add(item, spans[i]!.line, () => pieceLocator(source, spans[i]!, true)));
  }
  return result;
}

/** How many alias expansions one document may make; more is refused as a resource-exhaustion attack. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses one file's text. Throws ManifestSyntaxError on a syntax error; everything else is data. `documentModel`
 * reads it with the `yaml` document model whatever it is (what the fast readers are held to in the tests);
 * `source` gives the text again when a position is asked for, so this text need not be kept.
 */
export function parseManifestFile(
  cluster: string,
  file: string,
  text: string,
  options: { documentModel?: boolean; source?: () => string } = {},
): ParsedFile {
  // Positions are found from the text read again when the reader can (a big file's text is then not kept).
  const source: TextSource = options.source ?? text;
  if (!options.documentModel) {
    if (file.endsWith(".json") || /^\s*\{/.test(text)) {
      const parsed = parseJsonFile(cluster, file, text, source);
      if (parsed) return parsed;
    }
    const fast = parseYamlFast(cluster, file, text, source);
    if (fast) return fast;
  }
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const result: ParsedFile = { manifests: [], skipped: [] };
  const locator = fileLocator(source);
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
