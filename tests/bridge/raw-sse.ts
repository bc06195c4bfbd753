// Raw HTTP against the bridge, reading SSE answers block by block as they arrive, and a
// loopback hop that cuts an SSE answer mid-stream (as a dropped connection would),
// for the resumability tests. node:http rather than fetch: a test needs to see each
// block the moment it arrives and to drop the connection at a chosen point.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One SSE block: its fields as sent (`data` joined by newlines; "" when the block had none). */
export interface SseBlock {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
  comment?: string;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  blocks: SseBlock[];
  /** The whole body, once ended. */
  text(): string;
  /** Resolves with the first block from `from` on that matches. */
  next(match?: (b: SseBlock) => boolean, from?: number): Promise<SseBlock>;
  /** Resolves when the server ended the answer (rejects if the connection broke). */
  ended: Promise<void>;
  /** Drops the connection, as a network failure would. */
  drop(): void;
}

function parseBlock(text: string): SseBlock {
  const block: SseBlock = { data: "" };
  const data: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) block.comment = line.slice(1).trim();
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id") block.id = value;
    else if (field === "event") block.event = value;
    else if (field === "retry") block.retry = Number(value);
  }
  block.data = data.join("\n");
  return block;
}

export function raw(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: init.method, headers: init.headers }, (res) => {
      let body = "";
      let pending = "";
      const blocks: SseBlock[] = [];
      const waiters = new Set<() => void>();
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        pending += chunk;
        let cut = pending.indexOf("\n\n");
        while (cut !== -1) {
          blocks.push(parseBlock(pending.slice(0, cut)));
          pending = pending.slice(cut + 2);
          cut = pending.indexOf("\n\n");
        }
        for (const check of [...waiters]) check();
      });
      const ended = new Promise<void>((done, fail) => {
        res.once("end", () => done());
        res.once("error", fail);
        res.once("close", () => (res.complete ? done() : fail(new Error("connection dropped"))));
      });
      ended.catch(() => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        blocks,
        text: () => body,
        ended,
        drop: () => req.destroy(),
        next: (match = () => true, from = 0) =>
          new Promise((found, fail) => {
            const check = () => {
              const hit = blocks.slice(from).find(match);
              if (!hit) return;
              waiters.delete(check);
              found(hit);
            };
            waiters.add(check);
            ended.then(
              () => {
                check();
                if (waiters.delete(check)) fail(new Error(`the stream ended without the block awaited; got ${JSON.stringify(blocks)}`));
              },
              (error: unknown) => {
                if (waiters.delete(check)) fail(error);
              },
            );
            check();
          }),
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

export interface CuttingHop {
  url: string;
  /** Requests seen: method and the Last-Event-ID they carried. */
  seen: { method: string; lastEventId?: string }[];
  /** The next SSE answer to a POST is cut right after a block matching `pattern` went through. */
  cutAfter(pattern: RegExp): Promise<void>;
  close(): Promise<void>;
}

/** A loopback HTTP hop in front of `target` that can cut one SSE answer mid-stream (both sides). */
export async function cuttingHop(target: string): Promise<CuttingHop> {
  const upstreamUrl = new URL(target);
  const seen: CuttingHop["seen"] = [];
  let armed: { pattern: RegExp; cut: () => void } | undefined;
  const server: Server = createServer((req, res) => {
    const lastEventId = req.headers["last-event-id"];
    seen.push({ method: req.method ?? "", lastEventId: typeof lastEventId === "string" ? lastEventId : undefined });
    const upstream = httpRequest(
      { host: upstreamUrl.hostname, port: upstreamUrl.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstreamUrl.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const sse = req.method === "POST" && String(answer.headers["content-type"]).startsWith("text/event-stream");
        const trap = sse ? armed : undefined;
        if (trap) armed = undefined;
        let sent = "";
        let cutting = false;
        answer.on("data", (chunk: Buffer) => {
          if (cutting) return;
          sent += chunk.toString("utf8");
          if (!trap?.pattern.test(sent)) return void res.write(chunk);
          cutting = true;
          answer.destroy();
          upstream.destroy();
          // Once the block is on the wire, both sides go: the client sees a broken
          // stream after that block, the bridge a closed request.
          res.write(chunk, () => {
            res.destroy();
            trap.cut();
          });
        });
        answer.on("end", () => res.end());
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    cutAfter: (pattern) => new Promise<void>((cut) => (armed = { pattern, cut })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
