/** @module A rule as the edge knows it across syncs. */

/** A rule's id without the clusters it came from: a cluster joining renames every id, not the rule. */
export const ruleKey = (id: string): string => id.slice(id.indexOf("/") + 1);
