// What a page asks for, as Chromium's network layer sees it (CDP): each request with its
// method, whether the browser's cache answered it and its bytes over the wire, and a wait
// for the network to go quiet (no request in flight for 500 ms: Playwright's "networkidle",
// which the session's open WebSocket keeps from ever firing). Shared by the page-load test
// (tests/e2e/page-load.test.ts) and the page bench (bench/page-load.ts).
import type { Page } from "playwright-core";

export interface Seen {
  /** The path (the origin taken off). */
  url: string;
  method: string;
  /** Answered by the browser's cache (memory or disk), not the server. */
  cached: boolean;
  /** Bytes over the wire (CDP encodedDataLength: body and headers); 0 when cached. */
  bytes: number;
}

export interface RequestLog {
  /** Every request since the watch began, in the order asked (WebSockets apart: `sockets`). */
  seen(): Seen[];
  /** The WebSockets opened since the watch began (their paths): one request each to the server. */
  sockets(): string[];
  /** Resolves once no request has been in flight for `quietMs`; rejects after `timeoutMs`. */
  quiet(options?: { quietMs?: number; timeoutMs?: number }): Promise<void>;
  /** Stops watching (the CDP session is detached). */
  stop(): Promise<void>;
}

/** API calls and the page's files apart: the API is the data a load reads, the rest its files. */
export const isApi = (url: string): boolean => /^\/(api|oauth|sessions|auth)\b/.test(url);

/** Calls (method and path) made more than once. */
export function repeatedCalls(seen: Seen[]): string[] {
  const calls = seen.filter((r) => isApi(r.url)).map((r) => `${r.method} ${r.url}`);
  return [...new Set(calls.filter((call, i) => calls.indexOf(call) !== i))];
}

/** Watches `page` from now on; `origin` is cut off the URLs. */
export async function watchRequests(page: Page, origin: string): Promise<RequestLog> {
  const cdp = await page.context().newCDPSession(page);
  const seen = new Map<string, Seen>();
  const inFlight = new Set<string>();
  let lastChange = performance.now();
  cdp.on("Network.requestWillBeSent", ({ requestId, request }) => {
    if (request.url.startsWith("data:")) return;
    seen.set(requestId, { url: request.url.replace(origin, ""), method: request.method, cached: false, bytes: 0 });
    inFlight.add(requestId);
    lastChange = performance.now();
  });
  const sockets: string[] = [];
  cdp.on("Network.webSocketCreated", ({ url }) => sockets.push(new URL(url).pathname));
  cdp.on("Network.requestServedFromCache", ({ requestId }) => {
    const entry = seen.get(requestId);
    if (entry) entry.cached = true;
  });
  cdp.on("Network.responseReceived", ({ requestId, response }) => {
    const entry = seen.get(requestId);
    if (entry && (response.fromDiskCache || response.fromPrefetchCache)) entry.cached = true;
  });
  const ended = ({ requestId, encodedDataLength }: { requestId: string; encodedDataLength?: number }) => {
    const entry = seen.get(requestId);
    if (entry && !entry.cached) entry.bytes = encodedDataLength ?? 0;
    if (inFlight.delete(requestId)) lastChange = performance.now();
  };
  cdp.on("Network.loadingFinished", ended);
  cdp.on("Network.loadingFailed", ended);
  await cdp.send("Network.enable");
  return {
    seen: () => [...seen.values()],
    sockets: () => [...sockets],
    async quiet({ quietMs = 500, timeoutMs = 15_000 } = {}) {
      const deadline = performance.now() + timeoutMs;
      // Polled: "quiet" is the absence of an event, so there is none to await.
      while (inFlight.size > 0 || performance.now() - lastChange < quietMs) {
        if (performance.now() > deadline) throw new Error(`the network did not go quiet within ${timeoutMs} ms: ${inFlight.size} request(s) in flight`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => cdp.detach(),
  };
}
