/** @module Small statistics helpers for the benchmarks. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Median over `rounds` of the time per call of `fn`, repeating it until a round lasts at least `minMs`. */
export function timePerCall(fn: () => void, rounds = 7, minMs = 100): number {
  let calls = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < calls; i++) fn();
    if (performance.now() - t >= minMs / 4) break;
    calls *= 2;
  }
  const perCall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    let n = 0;
    while (performance.now() - t < minMs) {
      for (let i = 0; i < calls; i++) fn();
      n += calls;
    }
    perCall.push((performance.now() - t) / n);
  }
  return median(perCall);
}

export const fmt = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
