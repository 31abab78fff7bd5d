/** @module Kubernetes LabelSelector (matchLabels + matchExpressions), as used by allowedRoutes.namespaces and allowedListeners.namespaces. */
import type { LabelSelector } from "./typed-objects";

/** Returns a predicate over labels, or a problem description when the selector is missing or its operator unknown. */
export function compileLabelSelector(raw: LabelSelector | undefined): ((labels: Record<string, string>) => boolean) | string {
  // `from: Selector` without a selector passes the schema.
  if (raw === undefined) return "selector must be a mapping";
  const checks: ((labels: Record<string, string>) => boolean)[] = [];
  for (const [k, v] of Object.entries(raw.matchLabels ?? {})) checks.push((labels) => labels[k] === v);
  for (const { key, operator, values = [] } of raw.matchExpressions ?? []) {
    // The schema asks for an operator, but not for one of these.
    switch (operator) {
      case "In":
        checks.push((labels) => labels[key] !== undefined && values.includes(labels[key]));
        break;
      case "NotIn":
        checks.push((labels) => labels[key] === undefined || !values.includes(labels[key]));
        break;
      case "Exists":
        checks.push((labels) => labels[key] !== undefined);
        break;
      case "DoesNotExist":
        checks.push((labels) => labels[key] === undefined);
        break;
      default:
        return `unknown operator ${JSON.stringify(operator)}`;
    }
  }
  return (labels) => checks.every((check) => check(labels));
}
