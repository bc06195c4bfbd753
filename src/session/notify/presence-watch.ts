// Who is watching this chat: a person with an open socket on it whose page last said it is
// visible. A socket that never said (an API client, an older page) counts as visible, so it
// never causes a push. A visible tab on another chat does not count: its socket is that chat's.
import type { Connection } from "agents";

/** What a page socket keeps in its state (ChatSession.onConnect, the `visibility` frame). */
export interface SocketState {
  user?: unknown;
  requestId?: unknown;
  visible?: unknown;
}

export function visiblePeople(sockets: readonly Connection[]): Set<string> {
  const people = new Set<string>();
  for (const socket of sockets) {
    const state = socket.state as SocketState | null;
    if (typeof state?.user === "string" && state.visible !== false) people.add(state.user);
  }
  return people;
}

/**
 * The people who may answer this chat's questions: its owner and the approvers it was shared
 * with (docs/people.md). Viewers and participants are never among them, so they are never
 * pushed an approval nor given its token.
 */
export function answerers(owner: string | undefined, approvers: readonly string[] = []): string[] {
  return [...new Set([...(owner ? [owner] : []), ...approvers])];
}
