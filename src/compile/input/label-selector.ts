/** @module Kubernetes LabelSelector (matchLabels + matchExpressions), as used by allowedRoutes.namespaces. */
import { isJsonObject } from "../../gateway-api/manifest";

/** Returns a predicate over labels, or a problem description when the selector is malformed. */
export function compileLabelSelector(raw: unknown): ((labels: Record<string, string>) => boolean) | string {
  if (!isJsonObject(raw)) return "selector must be a mapping";
  const matchLabels = isJsonObject(raw.matchLabels) ? raw.matchLabels : {};
  const expressions = Array.isArray(raw.matchExpressions) ? raw.matchExpressions : [];
  const checks: ((labels: Record<string, string>) => boolean)[] = [];
  for (const [k, v] of Object.entries(matchLabels)) checks.push((labels) => labels[k] === String(v));
  for (const e of expressions) {
    if (!isJsonObject(e) || typeof e.key !== "string") return "matchExpressions entries need a key";
    const key = e.key;
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    switch (e.operator) {
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
        return `unknown operator ${JSON.stringify(e.operator)}`;
    }
  }
  return (labels) => checks.every((check) => check(labels));
}
