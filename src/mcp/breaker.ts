// Per-tool circuit breaker: after `failureThreshold` consecutive failures the tool
// is refused for `cooldownMs`; then one trial call is let through (half-open) and
// its outcome closes or re-opens the circuit.

export interface BreakerPolicy {
  failureThreshold: number;
  cooldownMs: number;
}

export const defaultBreaker: BreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };

export type BreakerState = "closed" | "open" | "half-open";

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private opened = false;

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly now: () => number,
  ) {}

  state(): BreakerState {
    if (!this.opened) return "closed";
    return this.now() - this.openedAt >= this.policy.cooldownMs ? "half-open" : "open";
  }

  /** Returns 0 when the call may go ahead, else milliseconds until it may be tried. */
  acquire(): number {
    const state = this.state();
    if (state === "closed") return 0;
    if (state === "open") return this.policy.cooldownMs - (this.now() - this.openedAt);
    if (this.trialInFlight) return 1;
    this.trialInFlight = true;
    return 0;
  }

  success(): void {
    this.failures = 0;
    this.opened = false;
    this.trialInFlight = false;
  }

  failure(): void {
    this.trialInFlight = false;
    this.failures++;
    if (this.opened || this.failures >= this.policy.failureThreshold) {
      this.opened = true;
      this.openedAt = this.now();
    }
  }

  /** A call that ended without telling us about the tool's health (cancelled, bad arguments). */
  release(): void {
    this.trialInFlight = false;
  }
}
