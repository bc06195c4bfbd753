// Tool latencies across every session, kept as counts in fixed buckets: mergeable from
// many reports, a few numbers to store, and a percentile read as the upper bound of the
// bucket it falls in (never more than the largest call seen).
const BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

export type Histogram = number[];

export function emptyHistogram(): Histogram {
  return new Array<number>(BOUNDS_MS.length + 1).fill(0);
}

/** `histogram` with one more call of `ms` (a new array: stored ones are read back as JSON). */
export function addToHistogram(histogram: Histogram, ms: number): Histogram {
  const next = histogram.length === BOUNDS_MS.length + 1 ? [...histogram] : emptyHistogram();
  const index = BOUNDS_MS.findIndex((bound) => ms <= bound);
  const bucket = index === -1 ? BOUNDS_MS.length : index;
  next[bucket] = (next[bucket] ?? 0) + 1;
  return next;
}

export function histogramPercentile(histogram: Histogram, p: number, maxMs: number): number | null {
  const total = histogram.reduce((n, c) => n + c, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return Math.min(BOUNDS_MS[i] ?? maxMs, maxMs);
  }
  return maxMs;
}
