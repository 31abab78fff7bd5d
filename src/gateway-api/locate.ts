/**
 * @module Where a field of an object is in its file (line and column), for diagnostics that name
 * `file:line:col`. The file is parsed again only when a diagnostic asks, once per file: keeping every
 * object's syntax tree from the first read would double the sync's memory for large configs.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, type Node, parseAllDocuments } from "yaml";

export interface Position {
  line: number;
  col: number;
}

/** `spec.rules[0].matches` as segments: ["spec", "rules", 0, "matches"]. */
export type FieldSegments = readonly (string | number)[];

/** Finds a field of one object; undefined when the path is not in the file (a default, say). */
export type Locate = (path: FieldSegments) => Position | undefined;

/** Splits `spec.rules[0].backendRefs[1].name` into segments. */
export function fieldSegments(field: string): FieldSegments {
  const segments: (string | number)[] = [];
  for (const part of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) segments.push(part[2] !== undefined ? Number(part[2]) : part[1]!);
  return segments;
}

/**
 * The locators of one file's objects, by document index (counting every `---` document) and, for a list,
 * item index. The file is parsed on first use.
 */
export function fileLocator(text: string): (document: number, item?: number) => Locate {
  let parsed: { roots: (Node | null)[]; lines: LineCounter } | undefined;
  const load = () => {
    if (!parsed) {
      const lines = new LineCounter();
      const docs = parseAllDocuments(text, { lineCounter: lines });
      const list = Array.isArray(docs) ? docs : [docs];
      parsed = { roots: list.map((d) => (isNode(d.contents) ? d.contents : null)), lines };
    }
    return parsed;
  };
  return (document, item) => (path) => {
    const { roots, lines } = load();
    let node: Node | null | undefined = roots[document];
    if (item !== undefined) {
      const items = isMap(node) ? node.get("items", true) : undefined;
      node = isSeq(items) ? (items.items[item] as Node | undefined) : undefined;
    }
    let at: [number, number, number] | undefined = node?.range ?? undefined;
    for (const segment of path) {
      if (typeof segment === "number" && isSeq(node)) {
        node = node.items[segment] as Node | undefined;
        at = node?.range ?? undefined;
      } else if (typeof segment === "string" && isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
        if (!pair) return undefined;
        at = isNode(pair.key) ? (pair.key.range ?? undefined) : undefined;
        node = pair.value as Node | null;
      } else return undefined;
      if (!at) return undefined;
    }
    if (!at) return undefined;
    const pos = lines.linePos(at[0]);
    return { line: pos.line, col: pos.col };
  };
}
