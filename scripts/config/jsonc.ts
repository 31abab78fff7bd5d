/**
 * @module JSON with comments and trailing commas, as wrangler.jsonc (and wrangler.json) allow: comments
 * and a comma before `}` or `]` are removed outside strings, then the text is parsed as JSON.
 */

/** The text without comments and trailing commas; strings are kept as they are. */
export function stripJsonc(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      // Copy the string, escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else {
      out += ch;
      i++;
    }
  }
  // A comma followed only by whitespace before a closing bracket (strings are intact, so look outside them).
  return out.replace(/,(\s*[}\]])/g, (match, rest: string, offset: number) => (insideString(out, offset) ? match : rest));
}

/** Whether position `at` of JSON text (without comments) is inside a string. */
function insideString(text: string, at: number): boolean {
  let inside = false;
  for (let i = 0; i < at; i++) {
    if (text[i] === "\\" && inside) i++;
    else if (text[i] === '"') inside = !inside;
  }
  return inside;
}

export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text));
}
