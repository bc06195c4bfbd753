// The relay between a user's sessions and their paired machines, run inside the user's
// UserAccount Durable Object. Each machine's bridge holds one outgoing WebSocket, accepted
// with the hibernation API (tagged with the machine's id) so an idle machine costs the
// object no wall time; heartbeats are answered by the runtime without waking it. A
// session's HTTP request to one of the machine's servers arrives here as a fetch, goes to
// the bridge as a `req` frame, and its answer streams back as the fetch's response body.
// A request in flight keeps the object awake; nothing else needs to live in memory.
import {
  MAX_IN_FLIGHT,
  parseServersHeader,
  PING,
  PONG,
  SERVERS_HEADER,
  ToWorkerSchema,
  TUNNELLED_REQUEST_HEADERS,
  TUNNELLED_RESPONSE_HEADERS,
  type ToBridge,
} from "../shared/machine-frames";
import { errorJson } from "../shared/error-body";
import { parseCredential, sha256 } from "./credentials";
import type { MachineStore, MachineView } from "./machine-store";
import { SocketLimits } from "./relay-limits";

/** Largest request body a session may send through the relay (the bridge's own limit is 4 MiB). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

interface Pending {
  machineId: string;
  answered: boolean;
  resolve: (response: Response) => void;
  /** The response body's controller, once the head arrived. */
  body?: ReadableStreamDefaultController<Uint8Array>;
  /** Numbered chunks not yet in the body: they may be handed over before the head or out of order. */
  held: Map<number, string>;
  /** The `seq` the body takes next. */
  nextSeq: number;
  /** From `end`: how many chunks the answer had (the body closes once all are in). */
  chunks?: number;
}

const encoder = new TextEncoder();

export class MachineRelay {
  private readonly pending = new Map<number, Pending>();
  /** Requests in flight per machine (the pending ones), counted as they come and go rather than by a scan per request. */
  private readonly inFlight = new Map<string, number>();
  /** Each socket's machine, read from its attachment once per socket object (a wake makes new objects), not once per frame. */
  private readonly machineOfSocket = new WeakMap<WebSocket, string | undefined>();
  // Random start: after a wake the bridge may still be finishing an aborted request's id.
  private nextId = Math.floor(Math.random() * 2 ** 30);
  private readonly limits = new SocketLimits();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly store: MachineStore,
    /** The user's machines changed (one came, went, announced servers): sessions read again. */
    private readonly changed: () => void,
  ) {
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  views(): MachineView[] {
    return this.store.list().map((m) => ({ ...m, online: this.socketOf(m.id) !== undefined }));
  }

  /** The bridge's `GET /machines/connect` (upgrade), after the Worker routed it here by the credential's user. */
  async accept(request: Request, userId: string): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return errorJson("upgrade_required", "connect with a WebSocket");
    const credential = parseCredential(/^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]);
    if (!credential || credential.userId !== userId || !this.store.verify(credential.machineId, await sha256(credential.secret))) {
      return errorJson("bad_device_credential", "this device credential is not valid (revoked, or never issued): pair the machine again");
    }
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // One socket per machine: a bridge that reconnects replaces its old socket.
    for (const old of this.ctx.getWebSockets(credential.machineId)) old.close(4000, "replaced by a newer connection");
    this.ctx.acceptWebSocket(server, [credential.machineId]);
    server.serializeAttachment({ machineId: credential.machineId });
    this.store.seen(credential.machineId);
    const servers = parseServersHeader(request.headers.get(SERVERS_HEADER));
    if (servers) this.store.announce(credential.machineId, servers);
    this.changed();
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Ends a machine's pairing: its socket closes at once and its credential no longer verifies. */
  revoke(machineId: string): boolean {
    const removed = this.store.remove(machineId);
    for (const socket of this.ctx.getWebSockets(machineId)) {
      send(socket, { t: "revoked" });
      socket.close(4001, "revoked");
    }
    this.failPending(machineId, "the machine was removed");
    if (removed) this.changed();
    return removed;
  }

  message(socket: WebSocket, data: string | ArrayBuffer): void {
    const machineId = this.machineOf(socket);
    if (!machineId) return socket.close(1011, "unknown socket");
    if (!this.limits.withinRate(socket)) return;
    let frame;
    try {
      frame = ToWorkerSchema.parse(JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data)));
    } catch {
      return this.limits.badFrame(socket);
    }
    if (frame.t === "hello") {
      this.store.announce(machineId, frame.servers);
      this.changed();
      return;
    }
    const pending = this.pending.get(frame.id);
    // Only answers to this machine's own requests: a frame for another id is dropped.
    if (!pending || pending.machineId !== machineId) return this.limits.stray(socket);
    if (frame.t === "full") {
      this.settle(frame.id);
      if (!pending.answered)
        pending.resolve(
          new Response(frame.status === 204 || frame.status === 202 ? null : frame.body, { status: frame.status, headers: answerHeaders(frame.headers) }),
        );
      return;
    }
    if (frame.t === "head") {
      if (pending.answered) return;
      pending.answered = true;
      const headers = answerHeaders(frame.headers);
      const id = frame.id;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          pending.body = controller;
        },
        // The session stopped reading (it closed a stream, or went away): the bridge stops too.
        cancel: () => {
          if (this.settle(id)) send(socket, { t: "abort", id });
        },
      });
      pending.resolve(new Response(frame.status === 204 ? null : body, { status: frame.status, headers }));
      this.drain(frame.id, pending);
    } else if (frame.t === "data") {
      // A bridge before numbered chunks: in the order handed over, as before.
      const seq = frame.seq ?? pending.nextSeq + pending.held.size;
      pending.held.set(seq, frame.chunk);
      this.drain(frame.id, pending);
    } else if (frame.t === "end") {
      pending.chunks = frame.chunks ?? pending.nextSeq + pending.held.size;
      this.drain(frame.id, pending);
    } else {
      this.settle(frame.id);
      if (!pending.answered) pending.resolve(errorJson("machine_failed", `the machine could not answer: ${frame.message}`));
      else fail(pending, frame.message);
    }
  }

  closed(socket: WebSocket): void {
    const machineId = this.machineOf(socket);
    if (!machineId) return;
    // A replaced socket closes after its successor opened: the machine is still online.
    if (this.socketOf(machineId) === undefined) this.failPending(machineId, "the machine went offline");
    this.changed();
  }

  /** A session's request to `/servers/{name}/mcp` on machine `machineId`. */
  async tunnel(request: Request, machineId: string, path: string): Promise<Response> {
    // An open socket is a paired machine's (removing one closes it at once): storage is read only to say why not, or to name a busy one.
    const socket = this.socketOf(machineId);
    if (!socket) {
      const machine = this.store.get(machineId);
      if (!machine) return errorJson("machine_unknown", "this machine is not paired (it was removed)");
      return errorJson("machine_offline", `machine "${machine.name}" is offline: start \`mcp-local-bridge connect\` on it`);
    }
    if ((this.inFlight.get(machineId) ?? 0) >= MAX_IN_FLIGHT)
      return errorJson("machine_busy", `machine "${this.store.get(machineId)?.name ?? machineId}" has too many requests in flight`);
    const method = request.method;
    if (method !== "GET" && method !== "POST" && method !== "DELETE") return errorJson("method_not_allowed", `${method} is not relayed`);
    const body = method === "POST" ? await request.text() : undefined;
    if (body !== undefined && body.length > MAX_REQUEST_BYTES) return errorJson("payload_too_large", "the request is too large for the relay");
    const headers: [string, string][] = [];
    for (const name of TUNNELLED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers.push([name, value]);
    }
    const id = this.nextId++;
    const answer = new Promise<Response>((resolve) => this.pending.set(id, { machineId, answered: false, resolve, held: new Map(), nextSeq: 0 }));
    this.inFlight.set(machineId, (this.inFlight.get(machineId) ?? 0) + 1);
    send(socket, { t: "req", id, method, path, headers, ...(body === undefined ? {} : { body }) });
    return answer;
  }

  /** Forgets a pending request (true when it was pending), and counts it out of its machine's requests in flight. */
  private settle(id: number): boolean {
    const pending = this.pending.get(id);
    if (!pending) return false;
    this.pending.delete(id);
    const left = (this.inFlight.get(pending.machineId) ?? 1) - 1;
    if (left > 0) this.inFlight.set(pending.machineId, left);
    else this.inFlight.delete(pending.machineId);
    return true;
  }

  private machineOf(socket: WebSocket): string | undefined {
    if (this.machineOfSocket.has(socket)) return this.machineOfSocket.get(socket);
    const machineId = machineOf(socket);
    this.machineOfSocket.set(socket, machineId);
    return machineId;
  }

  /** Moves the chunks that are next in order into the body, and closes it once `end` said all are in. */
  private drain(id: number, pending: Pending): void {
    if (!pending.body) return;
    try {
      for (let chunk = pending.held.get(pending.nextSeq); chunk !== undefined; chunk = pending.held.get(pending.nextSeq)) {
        pending.held.delete(pending.nextSeq++);
        pending.body.enqueue(encoder.encode(chunk));
      }
      if (pending.chunks !== undefined && pending.nextSeq >= pending.chunks) {
        this.settle(id);
        pending.body.close();
      }
    } catch {
      // Cancelled meanwhile.
      this.settle(id);
    }
  }

  private failPending(machineId: string, why: string): void {
    for (const [id, pending] of this.pending) {
      if (pending.machineId !== machineId) continue;
      this.settle(id);
      if (!pending.answered) pending.resolve(errorJson("machine_offline", why));
      else fail(pending, why);
    }
  }

  private socketOf(machineId: string): WebSocket | undefined {
    return this.ctx.getWebSockets(machineId).find((s) => s.readyState === WebSocket.OPEN);
  }
}

function machineOf(socket: WebSocket): string | undefined {
  const attachment = socket.deserializeAttachment() as { machineId?: unknown } | null;
  return typeof attachment?.machineId === "string" ? attachment.machineId : undefined;
}

function answerHeaders(pairs: [string, string][]): Headers {
  const headers = new Headers();
  for (const [name, value] of pairs) if (TUNNELLED_RESPONSE_HEADERS.includes(name.toLowerCase())) headers.append(name, value);
  return headers;
}

function fail(pending: Pending, why: string): void {
  try {
    pending.body?.error(new Error(why));
  } catch {
    // Cancelled meanwhile.
  }
}

function send(socket: WebSocket, frame: ToBridge): void {
  try {
    socket.send(JSON.stringify(frame));
  } catch {
    // Closing: its requests fail when the close arrives.
  }
}
