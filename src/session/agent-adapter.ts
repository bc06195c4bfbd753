// What this project takes from `agents`' Agent, and the one workaround it needs,
// kept in one place. Agent gives WebSocket hibernation, connection tracking,
// keep-alive during long work and alarms (schedule). It also answers frames of its
// own protocol — `rpc` method calls and `cf_agent_*` state writes — before the
// subclass sees them; a chat session must never let a client call methods or
// write state that way. So every frame goes straight to `onFrame`, parsed once by
// protocol.ts (which decides on the parsed `type`, so no escape can smuggle an
// agents frame in), and Agent's own protocol messages are switched off.
// (A plain DurableObject with the hibernation API would need keep-alive, alarms
// and connection state rebuilt by hand; the adapter is the smaller change.)
import { Agent, type Connection } from "agents";
import { parseClientFrame, toWire, type ClientMessage, type ServerMessage } from "../protocol/messages";

/**
 * How long work runs before it takes agents' keep-alive. Taking it writes an alarm
 * job to storage before the work may start and again when it ends; an object is
 * evicted only after 70-140 s without incoming events, so work shorter than this
 * needs none, and longer work is held well before that horizon.
 */
export const KEEP_ALIVE_GRACE_MS = 5_000;

export abstract class ProtocolAgent<Env extends object> extends Agent<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Replaces the onMessage Agent's constructor wrapped, so its dispatcher never runs.
    this.onMessage = (connection: Connection, raw: string | ArrayBuffer) => this.receive(connection, raw);
  }

  override shouldSendProtocolMessages(): boolean {
    return false;
  }

  /** A valid client message; anything else was already answered with an `error` frame. */
  protected abstract onFrame(connection: Connection, message: ClientMessage): Promise<void> | void;

  private async receive(connection: Connection, raw: string | ArrayBuffer): Promise<void> {
    const parsed = parseClientFrame(raw);
    if (!parsed.ok) return this.sendTo(connection, { type: "error", code: parsed.code, message: parsed.message });
    try {
      await this.onFrame(connection, parsed.message);
    } catch (error) {
      this.sendTo(connection, toWire.error(error));
    }
  }

  /** keepAliveWhile, taken only once `work` has run for `graceMs` (and released when it ends). */
  protected keepAliveAfter<T>(graceMs: number, work: () => Promise<T>): Promise<T> {
    let done = false;
    let release: (() => void) | undefined;
    const timer = setTimeout(() => {
      void this.keepAlive().then((dispose) => (done ? dispose() : (release = dispose)));
    }, graceMs);
    return work().finally(() => {
      done = true;
      clearTimeout(timer);
      release?.();
    });
  }

  protected openSockets(): Connection[] {
    // getConnections() can include sockets still closing.
    return [...this.getConnections()].filter((c) => c.readyState === WebSocket.OPEN);
  }

  /** One serialisation for every open socket (per shape `frameFor` gives). */
  protected sendAll(message: ServerMessage): void {
    const frames = new Map<ServerMessage, string>();
    for (const connection of this.openSockets()) {
      const shaped = this.frameFor(connection, message);
      let frame = frames.get(shaped);
      if (frame === undefined) {
        frame = JSON.stringify(shaped);
        frames.set(shaped, frame);
      }
      connection.send(frame);
    }
  }

  protected sendTo(connection: Connection, message: ServerMessage): void {
    if (connection.readyState === WebSocket.OPEN) connection.send(JSON.stringify(this.frameFor(connection, message)));
  }

  /** The frame as this socket's person may see it: the same object unless a subclass narrows it. */
  protected frameFor(_connection: Connection, message: ServerMessage): ServerMessage {
    return message;
  }
}
