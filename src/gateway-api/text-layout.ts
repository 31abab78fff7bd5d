/**
 * @module Where each object of a manifest file is, found by one pass over its lines without parsing it: the
 * documents (as `---` and `...` divide them) and, in a document that holds a list (`kind: List`, as `kubectl get
 * -o yaml` prints it), each item of its root `items`. The fast reader takes every object's line from here, and a
 * diagnostic's position is found by parsing only that object's text (locate.ts), never the whole file again.
 */

/** A piece of the file: offsets of its text, and the line (1-based) its object starts on. */
export interface TextSpan {
  start: number;
  end: number;
  line: number;
}

/** One document: its text, and its list items when its root has an `items` list in block style. */
export interface DocumentLayout extends TextSpan {
  items?: TextSpan[];
}

/** A document being laid out: its span, and the state of its root `items` list. */
interface OpenDocument extends DocumentLayout {
  /** Whether a content line has been seen (the span starts there). */
  started: boolean;
  /** 0: no `items:` yet; 1: `items:` seen, first item awaited; 2: in the items; 3: past them. */
  itemsState: 0 | 1 | 2 | 3;
  itemIndent: number;
}

const SPACE = 32;
const HASH = 35;
const DASH = 45;
const DOT = 46;
const PERCENT = 37;
const CR = 13;
const TAB = 9;

/** Whether the character at `i` ends a token: a line end, a space or a tab (or the text's end). */
const endsToken = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return Number.isNaN(c) || c === 10 || c === CR || c === SPACE || c === TAB;
};

/**
 * The documents of a YAML text, in the order a YAML parser returns them (an empty one between two `---`
 * included): each with the span of its text from its first content line, and its root list's items. One pass
 * over the lines, allocating only per document and per item (a 100 MB dump has millions of lines).
 */
export function yamlLayout(text: string): DocumentLayout[] {
  const documents: OpenDocument[] = [];
  let current: OpenDocument | null = null;
  const open = (start: number, line: number): OpenDocument => {
    const d: OpenDocument = { start, end: text.length, line, started: false, itemsState: 0, itemIndent: 0 };
    documents.push(d);
    return d;
  };
  const close = (at: number) => {
    if (current) {
      current.end = at;
      endItems(current, at);
    }
  };
  let line = 0;
  for (let start = 0; start <= text.length;) {
    line++;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let indent = 0;
    while (text.charCodeAt(start + indent) === SPACE) indent++;
    const first = text.charCodeAt(start + indent);
    const blank = start + indent >= end || first === HASH || (first === CR && start + indent + 1 === end);
    if (indent === 0 && first === DASH && text.startsWith("---", start) && endsToken(text, start + 3)) {
      close(start);
      current = open(start, line);
      // `--- key: value`: content on the marker's line.
      const rest = text.slice(start + 3, end).trim();
      if (rest !== "" && !rest.startsWith("#")) markContent(current, start, line, 0, text, end);
    } else if (indent === 0 && first === DOT && text.startsWith("...", start) && endsToken(text, start + 3)) {
      close(start);
      current = null;
    } else if (!blank && !(current === null && first === PERCENT)) {
      // A directive (`%YAML`) before a document's `---` is not content.
      current ??= open(start, line);
      markContent(current, start, line, indent, text, end);
    }
    if (end === text.length) break;
    start = end + 1;
  }
  close(text.length);
  return documents.map(({ start, end, line: at, items }) => (items ? { start, end, line: at, items } : { start, end, line: at }));
}

/** One content line of a document: where its span starts, and its place in the root `items` list. */
function markContent(d: OpenDocument, start: number, line: number, indent: number, text: string, end: number): void {
  if (!d.started) {
    d.started = true;
    d.start = start;
    d.line = line;
  }
  const item = text.charCodeAt(start + indent) === DASH && endsToken(text, start + indent + 1);
  switch (d.itemsState) {
    case 0:
      if (indent === 0 && /^items:[ \t]*(#.*)?\r?$/.test(text.slice(start, end))) d.itemsState = 1;
      return;
    case 1:
      if (!item) return void (d.itemsState = 3); // `items:` not followed by a block list
      d.itemsState = 2;
      d.itemIndent = indent;
      d.items = [{ start, end: text.length, line }];
      return;
    case 2:
      if (indent > d.itemIndent) return;
      if (indent === d.itemIndent && item) {
        d.items!.push({ start, end: text.length, line });
        return;
      }
      // The next root key: the list is over.
      endItems(d, start);
      d.itemsState = 3;
      return;
    case 3:
      return;
  }
}

/** Each item ends where the next starts, the last where the list ends. */
function endItems(d: OpenDocument, at: number): void {
  const items = d.items;
  if (!items || d.itemsState !== 2) return;
  for (let i = 0; i < items.length; i++) items[i]!.end = items[i + 1]?.start ?? at;
}

/**
 * The span of each element of the root object's `items` array in JSON text, found in one pass (JSON.parse gives
 * no positions): from the start of the element's first line (so columns stay the file's) to its closing brace.
 */
export function jsonListItems(text: string): TextSpan[] {
  const items: TextSpan[] = [];
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  let stringStart = 0;
  let stringEnd = 0;
  let rootKey = "";
  let inItems = false;
  let open: TextSpan | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) {
      line++;
      lineStart = i + 1;
    } else if (ch === 34) {
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
      if (inItems && depth === 2 && ch === 123) open = { start: lineStart, end: text.length, line };
      depth++;
      if (ch === 91 && depth === 2 && rootKey === "items") inItems = true;
    } else if (ch === 125 || ch === 93) {
      depth--;
      if (open && depth === 2 && ch === 125) {
        items.push({ ...open, end: i + 1 });
        open = undefined;
      }
      if (depth === 1) inItems = false;
    }
  }
  return items;
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
  return backslashes % 2 === 1;
}
