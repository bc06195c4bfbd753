// Whether any client of this app listens for list_changed: a 2026 `subscriptions/listen`
// stream (counted through the handler's event bus) or a 2025 session's GET stream (counted
// by its body). While one is open the app tells the person's account it watches until
// now + WATCH_MS and renews every RENEW_MS, so the account wakes the app for a change of the
// person's servers (src/users/app-watchers.ts); when the last one closes it says so, and an
// idle app is never woken. A lapsed watch (the object evicted without saying) ends by itself.
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";

const WATCH_MS = 10 * 60_000;
const RENEW_MS = 5 * 60_000;

export class StreamWatch {
  private open = 0;
  private timer?: ReturnType<typeof setInterval>;
  private told: Promise<void> = Promise.resolve();

  constructor(private readonly tell: (until: number) => Promise<void>) {}

  /** A stream opened; the function closes it (once, whatever calls it twice). */
  opened(): () => void {
    if (this.open++ === 0) {
      this.renew();
      this.timer = setInterval(() => this.renew(), RENEW_MS);
    }
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      if (--this.open > 0) return;
      clearInterval(this.timer);
      this.timer = undefined;
      this.send(0);
    };
  }

  /** Streams open now. */
  get streams(): number {
    return this.open;
  }

  /**
   * Settles when the account has heard the latest watch: a stream's response is handed to the
   * client only after it, so a change made once the client sees its stream open reaches it.
   */
  settled(): Promise<void> {
    return this.told;
  }

  private renew(): void {
    this.send(Date.now() + WATCH_MS);
  }

  private send(until: number): void {
    // In order: a close must not land before the open it ends. A failed tell is retried by the next renewal.
    this.told = this.told.then(() => this.tell(until)).catch(() => undefined);
  }
}

/** The 2026 handler's bus, counting each listen stream's subscription as an open stream. */
export function watchedBus(inner: ServerEventBus, watch: StreamWatch): ServerEventBus {
  return {
    publish: (event: ServerEvent) => inner.publish(event),
    subscribe: (listener) => {
      const close = watch.opened();
      const unsubscribe = inner.subscribe(listener);
      return () => {
        close();
        unsubscribe();
      };
    },
  };
}

/** A 2025 GET stream's body, counted open until it ends or the client goes away. */
export function watchedBody(body: ReadableStream<Uint8Array>, watch: StreamWatch): ReadableStream<Uint8Array> {
  const close = watch.opened();
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const read = await reader.read();
        if (!read.done) return controller.enqueue(read.value);
        close();
        controller.close();
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    cancel(reason) {
      close();
      return reader.cancel(reason);
    },
  });
}
