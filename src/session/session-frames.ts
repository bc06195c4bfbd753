// What a chat session does with each frame its sockets send (ChatSession.onFrame): each
// passes the role gate first (people/frame-gate.ts: a viewer watches, a participant also
// sends text, an approver also answers, the owner does the rest); messages, prompts,
// regenerate and edit start turns; the rest change the session's settings or end its work.
import type { Connection } from "agents";
import type { Logger } from "../shared/logger";
import { errorMessage } from "../shared/logger";
import { RequestError } from "../shared/errors";
import { toWire, type ClientMessage, type ServerMessage } from "../protocol/messages";
import { branchOpening, TURN_RUNNING, unknownTurn } from "./branch-opening";
import type { AppCalls } from "./mcp-apps";
import type { SessionParts } from "./session-parts";
import { openWithPrompt } from "./prompt-opening";
import { openMessage } from "./message-opening";
import { admitFrame, type GateSite } from "./people/frame-gate";
import type { SocketPerson } from "./people/session-people";

/** What the frame router needs of the session object. */
export interface FrameSite extends Omit<GateSite, "ownerName" | "urlQuestion" | "ownerRule"> {
  parts: SessionParts;
  appCalls: AppCalls;
  log: Logger;
  sendTo(connection: Connection, message: ServerMessage): void;
  sendAll(message: ServerMessage): void;
  requestIdOf(connection: Connection): string | undefined;
  /** Whether anyone is invited to this chat (then user entries carry their author). */
  shared(): boolean;
  /** A member's message against their own rate first (people/session-people.ts). */
  admitSender(person: SocketPerson): Promise<Extract<ServerMessage, { type: "error" }> | undefined>;
  /** Who started the turn now running. */
  startedBy(turnId: string | undefined, user: string): void;
  /** The session's MCP connections, opened (a turn's opening may need them). */
  connected(): Promise<void>;
  historyFrame(): Extract<ServerMessage, { type: "history" }>;
  keepAliveWhile<T>(work: () => Promise<T>): Promise<T>;
  /** Applies one of the owner's presets (chat-preset.ts): the errors for the sender. */
  applyPreset(id: string): Promise<Extract<ServerMessage, { type: "error" }>[]>;
  /** Keeps whether the socket's page is visible (notify/presence-watch.ts). */
  setVisible(connection: Connection, visible: boolean): void;
}

export async function routeFrame(site: FrameSite, connection: Connection, message: ClientMessage): Promise<void> {
  const person = admitFrame(
    {
      ...site,
      ownerName: () => site.parts.owner.name,
      urlQuestion: (id) => site.parts.approvals.pending().some((q) => q.type === "elicitation_request" && q.requestId === id && q.mode === "url"),
      ownerRule: (id) => site.parts.approvals.mine.list().some((r) => r.id === id),
    },
    connection,
    message,
  );
  if (!person) return;
  switch (message.type) {
    case "message": {
      const { text, attachments, files } = message;
      const author = site.shared() || person.role !== "owner" ? { key: person.key, name: person.name } : undefined;
      const attached = Boolean(attachments?.length || files?.length);
      // The turn is claimed at once (no await before it): a cancel sent right behind the message must find it.
      // A participant's own rate is asked inside the claimed turn, as the owner's is (TurnRunner.start).
      const refused = await site.parts.turns.start(
        person.role === "owner" && !author && !attached
          ? text
          : async () => {
              // Theirs from the claim on: a participant may cancel a turn they started, even while it opens.
              site.startedBy(site.parts.turns.running, person.user);
              const ownRate = await site.admitSender(person);
              if (ownRate) throw new RequestError(ownRate.code, ownRate.message);
              if (attached) {
                return openMessage(
                  text,
                  { attachments, files },
                  { files: site.parts.files, resources: site.parts.attachments, connected: () => site.connected() },
                );
              }
              return { entries: [{ kind: "user", text, ...(author ? { author } : {}) }], title: text };
            },
        { requestId: site.requestIdOf(connection), ...(author ? { author } : {}) },
      );
      if (refused) site.sendTo(connection, refused);
      else site.startedBy(site.parts.turns.running, person.user);
      return;
    }
    case "prompt": {
      const refused = await site.parts.turns.start(
        () =>
          site.connected().then(() =>
            openWithPrompt(message, {
              host: site.parts.mcp.host(),
              attachments: site.parts.attachments,
              store: site.parts.attachmentStore,
              files: site.parts.files,
            }),
          ),
        { requestId: site.requestIdOf(connection) },
      );
      if (refused) site.sendTo(connection, refused);
      return;
    }
    case "cancel":
      return site.parts.turns.cancel(message.turnId);
    case "regenerate":
    case "edit": {
      // The edited message is the editor's: in a shared chat it carries their name, as their messages do.
      const editor = site.shared() ? { key: person.key, name: person.name } : undefined;
      const opening = branchOpening(site.parts.store, message.turnId, message.type === "edit" ? message.text : undefined, editor);
      if (!opening) return site.sendTo(connection, unknownTurn(message.turnId));
      const refused = await site.parts.turns.start(async () => opening, { requestId: site.requestIdOf(connection), branchOf: message.turnId });
      if (refused) site.sendTo(connection, refused);
      return;
    }
    case "compact": {
      const refused = await site.parts.turns.compactNow({ requestId: site.requestIdOf(connection) });
      if (refused) site.sendTo(connection, refused);
      return;
    }
    case "switch_branch": {
      if (site.parts.turns.running) return site.sendTo(connection, TURN_RUNNING);
      if (!site.parts.store.tree.switchTo(message.turnId)) return site.sendTo(connection, unknownTurn(message.turnId));
      return site.sendAll(site.historyFrame());
    }
    case "approval":
    case "elicitation_response": {
      // Only the owner and approvers get here (the gate); in a shared chat everyone sees who answered.
      const answered = await site.parts.approvals.answerFromPage(message, site.shared() ? { key: person.key, name: person.name } : undefined);
      if (!answered.ok) {
        site.log.warn("answer refused", { requestId: site.requestIdOf(connection), code: answered.code });
        site.sendTo(connection, { type: "error", code: answered.code, message: answered.message });
      } else if (message.type === "approval")
        site.log.info("approval answered", { requestId: site.requestIdOf(connection), callId: message.callId, approved: message.approved });
      return;
    }
    case "set_model": {
      const { type: _type, ...choice } = message;
      try {
        site.sendAll({ type: "model", choice: await site.parts.model.set(choice) });
      } catch (error) {
        site.sendTo(connection, toWire.error(error));
      }
      return;
    }
    case "revoke_always":
      if (!site.parts.approvals.revoke(message.tool))
        site.sendTo(connection, { type: "error", code: "not_always_allowed", message: `${message.tool} is not always allowed in this session` });
      return;
    case "revoke_rule":
      if (!(await site.parts.approvals.revokeRule(message.id)))
        site.sendTo(connection, { type: "error", code: "rule_unknown", message: `neither this chat nor your rules for all chats have a rule ${message.id}` });
      return;
    case "set_servers": {
      // A server switched on that was left unconnected is connected now, unless a turn runs (then at the next turn).
      const connect = site.parts.mcp.setEnabled(message.enabled);
      site.sendAll({ type: "servers", servers: site.parts.mcp.status() });
      if (connect && !site.parts.turns.running) void site.keepAliveWhile(connect).catch(() => undefined);
      return;
    }
    case "apply_preset": {
      // The owner's alone (the role gate: "control"); the preset is read from the owner's account.
      for (const error of await site.applyPreset(message.id)) site.sendTo(connection, error);
      return;
    }
    case "cancel_task":
      return site.parts.tasks.cancel(message.callId).catch((error: unknown) => site.sendTo(connection, toWire.error(error)));
    case "ping":
      return site.sendTo(connection, { type: "pong" });
    case "visibility":
      site.setVisible(connection, message.visible);
      // A page hidden right after a question appeared: its person is pushed now.
      if (!message.visible) site.parts.notices.late();
      return;
    case "reset":
      site.parts.turns.cancel(undefined, "reset");
      site.appCalls.cancelAll("reset");
      void site.keepAliveWhile(() => site.parts.tasks.forget());
      site.parts.store.clear();
      site.parts.searchFeed.forget();
      void site.keepAliveWhile(() => site.parts.attachments.forget(site.parts.connectedMcp?.host()));
      // Before the page hears the history is empty: by then its files are gone too.
      await site
        .keepAliveWhile(() => site.parts.files.forget())
        .catch((error: unknown) => site.log.warn("could not delete the session's files", { error: errorMessage(error) }));
      site.sendAll({ type: "history", entries: [] });
      return;
  }
}
