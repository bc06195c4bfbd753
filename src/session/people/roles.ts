// What each person in a shared chat may do (docs/people.md): one table, consulted by the
// frame gate (session-frames.ts), the Worker's admission (src/http/owned-session.ts) and
// the people routes. Roles rank viewer < participant < approver < owner; each action needs
// the least role that may take it.
import type { ClientMessage } from "../../protocol/messages";

export const MEMBER_ROLES = ["viewer", "participant", "approver"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export type Role = MemberRole | "owner";

const RANK: Record<Role, number> = { viewer: 0, participant: 1, approver: 2, owner: 3 };

export const roleAtLeast = (role: Role, least: Role): boolean => RANK[role] >= RANK[least];

/**
 * What a frame does, named as the refusal says it ("Viewers can't <label> in Alice's chat").
 * `watch`: a socket's own upkeep; `message`: start a turn with text; `answer`: approvals,
 * questions and the chat's always-allowed tools and rules; `control`: the chat itself.
 */
export type Action = "watch" | "message" | "cancel" | "answer" | "control";

// `cancel`: an approver stops any turn; a participant only one they started (frame-gate.ts).
const LEAST: Record<Action, Role> = { watch: "viewer", message: "participant", cancel: "approver", answer: "approver", control: "owner" };

export const can = (role: Role, action: Action): boolean => roleAtLeast(role, LEAST[action]);

/** The action a frame takes. A message with attachments or files reads the owner's servers or files: the owner's alone. */
export function actionOf(frame: ClientMessage): Action {
  switch (frame.type) {
    case "ping":
    case "visibility":
      return "watch";
    case "message":
      return frame.attachments?.length || frame.files?.length ? "control" : "message";
    case "cancel":
      return "cancel";
    case "approval":
      // A rule for all the owner's chats goes into the owner's account: the owner's alone.
      return frame.rule?.scope === "all" ? "control" : "answer";
    case "elicitation_response":
    case "revoke_always":
    case "revoke_rule":
    case "cancel_task":
      return "answer";
    default:
      return "control";
  }
}

const WHAT: Record<Exclude<Action, "watch">, string> = {
  message: "send messages",
  cancel: "stop a turn someone else started",
  answer: "answer approvals or change what is allowed",
  control: "change this chat or its settings",
};

const PLURAL: Record<Role, string> = { viewer: "Viewers", participant: "Participants", approver: "Approvers", owner: "Owners" };

/** The refusal's text: what was refused, for whom, and whose chat it is. */
export function refusalText(role: Role, action: Action, ownerName: string | undefined, frameType: string): string {
  const what = action === "watch" ? frameType : WHAT[action];
  const whose = ownerName ? `${ownerName}'s chat` : "this chat";
  return `${PLURAL[role]} can't ${what} in ${whose} (${frameType}).`;
}
