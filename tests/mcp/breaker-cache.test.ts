import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../src/mcp/breaker";
import { TtlLruCache } from "../../src/mcp/cache";
import { CallStats } from "../../src/shared/metrics";
import { ManualClock } from "../fixtures/host";

describe("CircuitBreaker", () => {
  it("opens after the threshold, lets one trial through after the cool-down, and closes on success", () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1_000 }, clock.now);
    for (let i = 0; i < 3; i++) {
      expect(breaker.acquire()).toBe(0);
      breaker.failure();
    }
    expect(breaker.state()).toBe("open");
    clock.advance(400);
    expect(breaker.acquire()).toBe(600);
    clock.advance(600);
    expect(breaker.acquire()).toBe(0); // the trial
    expect(breaker.acquire()).toBeGreaterThan(0); // only one trial at a time
    breaker.success();
    expect(breaker.state()).toBe("closed");
    expect(breaker.acquire()).toBe(0);
  });

  it("re-opens at once when the trial fails", () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1_000 }, clock.now);
    breaker.failure();
    clock.advance(1_000);
    expect(breaker.acquire()).toBe(0);
    breaker.failure();
    expect(breaker.acquire()).toBe(1_000);
  });
});

describe("TtlLruCache", () => {
  it("expires by TTL, evicts the least recently used, and keeps stale copies for fallback", () => {
    const clock = new ManualClock();
    const cache = new TtlLruCache<string>({ ttlMs: 100, maxEntries: 2 }, clock.now);
    cache.set("a", "A");
    cache.set("b", "B");
    expect(cache.get("a")).toBe("A");
    cache.set("c", "C"); // evicts b
    expect(cache.get("b")).toBeUndefined();
    clock.advance(100);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.getStale("a")).toBe("A");
    expect(cache.stats()).toEqual({ hits: 1, misses: 2, evictions: 1, size: 2 });
  });
});

describe("CallStats", () => {
  it("reports counts and nearest-rank percentiles", () => {
    const stats = new CallStats();
    for (let ms = 1; ms <= 100; ms++) stats.record(ms, ms % 10 === 0 ? "error" : ms === 7 ? "timeout" : "ok");
    expect(stats.snapshot()).toEqual({ calls: 100, errors: 11, timeouts: 1, p50Ms: 50, p95Ms: 95 });
  });
});
