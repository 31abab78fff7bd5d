/** @module Weighted random choice over cumulative weights: built once per table, one binary search per pick. */

/** Cumulative weights for one weighted choice; `total` 0 means nothing may be chosen. */
export interface WeightedChoice {
  cumulative: number[];
  total: number;
}

export function weightedChoice(weights: number[]): WeightedChoice {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += Math.max(0, w);
    cumulative.push(total);
  }
  return { cumulative, total };
}

/** Index picked by weight for a random number in [0, 1), or -1 when every weight is 0. */
export function pickWeighted(choice: WeightedChoice, random: number): number {
  if (choice.total <= 0) return -1;
  const target = random * choice.total;
  const { cumulative } = choice;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (target < cumulative[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
