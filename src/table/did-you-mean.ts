/**
 * @module "Did you mean": the known name a couple of edits (or a letter case) away from a mistyped one, for a field
 * name the schema does not know and for a reference to an object that is not there (a Gateway, a Service, a
 * port). One measure for both, so a typo gets the same help wherever it is made.
 */

/** The known names a couple of edits (or a letter case) away from `key`, the nearest ones (ties kept, in order). */
export function nearestNames(key: string, names: readonly string[]): string[] {
  const lower = key.toLowerCase();
  const exact = names.filter((n) => n.toLowerCase() === lower);
  if (exact.length > 0) return exact;
  const near = names.map((n) => ({ n, d: editDistance(n.toLowerCase(), lower) })).filter(({ n, d }) => d <= (n.length >= 5 ? 2 : 1));
  const best = Math.min(...near.map((c) => c.d));
  return near.filter((c) => c.d === best).map((c) => c.n);
}

/** The one known name nearest to `key`, when one is nearest. */
export const nearest = (key: string, names: readonly string[]): string | undefined => {
  const found = nearestNames(key, names);
  return found.length === 1 ? found[0] : undefined;
};

/** At most this many names are listed: enough to see the pattern, not a page of them. */
const LISTED = 8;

/**
 * What a reference to `key` could have meant, for a message: ` (did you mean edge? Gateways here: edge, internal)`
 * where `listed` names the list ("Gateways here"), or ` (no Gateways here)` when it is empty.
 */
export function suggestion(key: string, names: readonly string[], listed: string): string {
  const known = [...new Set(names)];
  if (known.length === 0) return ` (no ${listed})`;
  const near = nearestNames(key, known).slice(0, 3);
  const shown = known.length > LISTED ? `${known.slice(0, LISTED).join(", ")} and ${known.length - LISTED} more` : known.join(", ");
  return ` (${near.length > 0 ? `did you mean ${near.join(" or ")}? ` : ""}${listed}: ${shown})`;
}

/** Edit distance counting an insertion, deletion, substitution or swap of two neighbours as one (`egde` → `edge`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}
