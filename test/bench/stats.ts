/** Small statistics helpers for the benchmark. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
