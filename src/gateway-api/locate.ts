/**
 * @module Where a field of an object is in its file (line and column), for diagnostics that name
 * `file:line:col`. Found only when a diagnostic asks: by parsing that object's own text again (pieceLocator,
 * when the reader knows where it is), else the file once; keeping every object's syntax tree from the first
 * read would multiply the sync's memory for large configs.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, type Node, parseAllDocuments, parseDocument } from "yaml";

export interface Position {
  line: number;
  col: number;
}

/** `spec.rules[0].matches` as segments: ["spec", "rules", 0, "matches"]. */
export type FieldSegments = readonly (string | number)[];

/** Finds a field of one object; undefined when the path is not in the file (a default, say). */
export interface Locate {
  at(path: FieldSegments): Position | undefined;
}

/** Splits `spec.rules[0].backendRefs[1].name` into segments. */
export function fieldSegments(field: string): FieldSegments {
  const segments: (string | number)[] = [];
  for (const part of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) segments.push(part[2] !== undefined ? Number(part[2]) : part[1]!);
  return segments;
}

/**
 * A file's text, or how to have it again when a position is asked for: the reader of a big file passes a
 * function that reads the file back, so its text is not kept in memory for positions few objects ever need.
 */
export type TextSource = string | (() => string);
const textOf = (source: TextSource): string => (typeof source === "string" ? source : source());

/** The position of `path` inside `node`, read with `lines`; undefined when the path is not there. */
function find(node: Node | null | undefined, path: FieldSegments, lines: LineCounter, lineOffset = 0): Position | undefined {
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
  return { line: pos.line + lineOffset, col: pos.col };
}

/**
 * The locators of one file's objects, by document index (counting every `---` document) and, for a list,
 * item index. The file is parsed on first use.
 */
export function fileLocator(text: TextSource): (document: number, item?: number) => Locate {
  let parsed: { roots: (Node | null)[]; lines: LineCounter } | undefined;
  const load = () => {
    if (!parsed) {
      const lines = new LineCounter();
      const docs = parseAllDocuments(textOf(text), { lineCounter: lines });
      const list = Array.isArray(docs) ? docs : [docs];
      parsed = { roots: list.map((d) => (isNode(d.contents) ? d.contents : null)), lines };
    }
    return parsed;
  };
  return (document, item) => ({
    at(path) {
      const { roots, lines } = load();
      let node: Node | null | undefined = roots[document];
      if (item !== undefined) {
        const items = isMap(node) ? node.get("items", true) : undefined;
        node = isSeq(items) ? (items.items[item] as Node | undefined) : undefined;
      }
      return find(node, path, lines);
    },
  });
}

/** A piece of a file holding one object: a document, or a list item (`- ...`, or a JSON element). */
export interface ObjectText {
  start: number;
  end: number;
  /** The 1-based line the piece starts on. */
  line: number;
}

/**
 * The locator of one object whose text is a piece of a file's text: only that piece is parsed, and only when a
 * diagnostic asks, so a field of one object in a 100 MB dump is found without reading the dump again. The piece
 * starts at the beginning of a line, so columns are the file's; `item` says the piece is a `- ` list item. Every
 * object read has one: an object of six fields, where a closure over the piece and the piece itself took 15 MB
 * for 100k routes (measured).
 */
class PieceLocator implements Locate {
  private parsed: { root: Node | null | undefined; lines: LineCounter } | undefined = undefined;

  constructor(
    private readonly text: TextSource,
    private readonly start: number,
    private readonly end: number,
    private readonly line: number,
    private readonly item: boolean,
  ) {}

  at(path: FieldSegments): Position | undefined {
    if (!this.parsed) {
      const lines = new LineCounter();
      const doc = parseDocument(textOf(this.text).slice(this.start, this.end), { lineCounter: lines });
      const root = isNode(doc.contents) ? doc.contents : null;
      this.parsed = { root: this.item && isSeq(root) ? (root.items[0] as Node | undefined) : root, lines };
    }
    return find(this.parsed.root, path, this.parsed.lines, this.line - 1);
  }
}

/** The locator of one object whose text is `piece` of `text` (PieceLocator). */
export const pieceLocator = (text: TextSource, piece: ObjectText, item: boolean): Locate =>
  new PieceLocator(text, piece.start, piece.end, piece.line, item);
