// Who is in a shared chat right now (docs/people.md), drawn from its open sockets' state:
// the `people` frame. The owner's copy lists everyone invited (joined or not); the others'
// lists the owner and the members who are here, so an invitee never learns who else was
// asked. Sent coalesced: a burst of joins, leaves and visibility changes is one frame.
import type { Connection } from "agents";
import type { ServerMessage } from "../../protocol/messages";
import type { SocketState } from "../notify/presence-watch";
import type { Member } from "./members";

type PeopleFrame = Extract<ServerMessage, { type: "people" }>;

/** Presence of each person (by user id) with an open socket: here, and visible if any of their pages is. */
export function presenceOf(sockets: readonly Connection[]): Map<string, { visible: boolean }> {
  const here = new Map<string, { visible: boolean }>();
  for (const socket of sockets) {
    const state = socket.state as SocketState | null;
    if (typeof state?.user !== "string") continue;
    const visible = state.visible !== false || here.get(state.user)?.visible === true;
    here.set(state.user, { visible });
  }
  return here;
}

export function peopleFrame(
  owner: { id: string; key: string; name: string },
  members: readonly Member[],
  sockets: readonly Connection[],
  forOwner: boolean,
): PeopleFrame {
  const here = presenceOf(sockets);
  const ownerHere = here.get(owner.id);
  const listed = members
    .map((m) => {
      const present = m.userId === undefined ? undefined : here.get(m.userId);
      return { key: m.key, name: m.name, role: m.role, here: present !== undefined, visible: present?.visible ?? false, invited: m.joinedAt === undefined };
    })
    .filter((m) => forOwner || m.here);
  return { type: "people", owner: { key: owner.key, name: owner.name, here: ownerHere !== undefined, visible: ownerHere?.visible ?? false }, members: listed };
}

/** One send per burst: `schedule` within `delayMs` of another makes no second frame. */
export class Coalesced {
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly send: () => void,
    private readonly delayMs = 100,
  ) {}

  schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, this.delayMs);
  }

  /** Now, and any pending send dropped (it would say the same). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.send();
  }
}
