// This process's performance.now() moved onto CLOCK_MONOTONIC (ms), the clock Chromium's CDP
// timestamps and perf's use on Linux: the fake model's records and the browser's events then
// share one clock.
export const monoOffset = (): number => Number(process.hrtime.bigint()) / 1e6 - performance.now();
