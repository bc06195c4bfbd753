// The role gate every socket frame passes first (session-frames.ts): the sender's role is
// looked up live (a change applies to their next frame), and a frame their role may not
// send is refused with `role_forbidden` naming what and whose chat, the socket left open.
// A socket whose person was removed meanwhile is closed (4403), as at the removal.
import type { Connection } from "agents";
import type { ClientMessage, ServerMessage } from "../../protocol/messages";
import type { Logger } from "../../shared/logger";
import type { SocketPerson } from "./session-people";
import { REMOVED_CLOSE, REMOVED_REASON } from "./members";
import { actionOf, can, refusalText } from "./roles";

export interface GateSite {
  log: Logger;
  sendTo(connection: Connection, message: ServerMessage): void;
  requestIdOf(connection: Connection): string | undefined;
  personOf(connection: Connection): SocketPerson | undefined;
  /** The owner's name, for the refusal's text. */
  ownerName(): string | undefined;
  /** Whether `user` started the running turn (a participant stops only their own). */
  startedTurn(user: string): boolean;
  /** Whether `requestId` is a URL-mode question (a sign-in at the owner's server: the owner's alone). */
  urlQuestion(requestId: string): boolean;
  /** Whether `id` is one of the owner's rules for all their chats (kept in the owner's account: theirs to revoke). */
  ownerRule(id: string): boolean;
}

/** The sender when their role allows `message`; otherwise the refusal is sent and undefined returned. */
export function admitFrame(site: GateSite, connection: Connection, message: ClientMessage): SocketPerson | undefined {
  const person = site.personOf(connection);
  if (!person) {
    site.sendTo(connection, { type: "error", code: "role_forbidden", message: "You are no longer in this chat." });
    connection.close(REMOVED_CLOSE, REMOVED_REASON);
    return undefined;
  }
  let action = actionOf(message);
  if (message.type === "elicitation_response" && site.urlQuestion(message.requestId)) action = "control";
  if (message.type === "revoke_rule" && site.ownerRule(message.id)) action = "control";
  const allowed = can(person.role, action) || (action === "cancel" && person.role === "participant" && site.startedTurn(person.user));
  if (allowed) return person;
  site.log.warn("frame refused", { requestId: site.requestIdOf(connection), role: person.role, frame: message.type });
  site.sendTo(connection, { type: "error", code: "role_forbidden", message: refusalText(person.role, action, site.ownerName(), message.type) });
  return undefined;
}
