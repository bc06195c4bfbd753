// ChatSession's people (docs/people.md), one class of its chain (ChatSession.ts lists them):
// the members table, admission of members beside the owner, who each socket is, presence,
// and the Worker's RPC for the people routes (src/http/people.ts). Whose tools run never
// changes: servers, machines, sign-ins and the model stay the owner's (session-owner.ts);
// a member's id is used only for authorship, their own rate limit and their list.
import type { Connection } from "agents";
import type { PersonRef, ServerMessage } from "../../protocol/messages";
import type { PublicError } from "../../shared/errors";
import { personKey } from "../../shared/person-key";
import { userAccount } from "../../users/account";
import type { SocketState } from "../notify/presence-watch";
import { SessionScheduling } from "../schedules/session-scheduling";
import { OWNER_KEY_SETTING } from "../speakers";
import type { AdmitOptions, PersonAdmission } from "../session-owner";
import { type Member, Members, REMOVED_CLOSE, REMOVED_REASON } from "./members";
import { Coalesced, peopleFrame } from "./presence";
import { can, type MemberRole, type Role } from "./roles";

/** Who a socket is, looked up at each frame (a role change applies to the next one). */
export interface SocketPerson extends PersonRef {
  user: string;
  role: Role;
}

export interface MemberView extends PersonRef {
  role: MemberRole;
  joined: boolean;
  here: boolean;
}

export interface PeopleView {
  owner: PersonRef;
  members: MemberView[];
  cap: number;
}

export type Refused = { refused: PublicError };

export abstract class SessionPeople extends SessionScheduling {
  private membersCache?: Members;
  private readonly presenceSend = new Coalesced(() => this.sendPeople());
  /** Who started the running turn (a participant may stop only their own). */
  private starter?: { turnId: string; user: string };
  /** One members' view per always_allowed frame, so a broadcast serialises it once. */
  private readonly membersView = new WeakMap<ServerMessage, ServerMessage>();

  protected get members(): Members {
    this.membersCache ??= new Members(this.ctx.storage.sql);
    return this.membersCache;
  }

  /** Whether anyone is invited: a chat nobody shares sends no presence, authors or `you`. */
  protected get shared(): boolean {
    return this.members.list().length > 0;
  }

  override async admit(user: string, options: AdmitOptions): Promise<PersonAdmission> {
    const admission = await super.admit(user, options);
    if (admission === "full") return admission;
    if (admission !== "denied") {
      if (this.parts.store.getSetting<string>(OWNER_KEY_SETTING) === undefined) this.parts.store.setSetting(OWNER_KEY_SETTING, await personKey(user));
      return admission;
    }
    const admitted = await this.members.admit(user, options.name);
    if (!admitted) return "denied";
    // Access mode: bound now, so their list learns the chat now (token mode: at the invite).
    if (admitted.first) await this.listFor(admitted.member);
    return admitted.member.role;
  }

  /** The owner's rules for all their chats are the owner's to see: members get the chat's own only. */
  protected override frameFor(connection: Connection, message: ServerMessage): ServerMessage {
    if (message.type !== "always_allowed" || !message.rules?.some((r) => r.scope === "all")) return message;
    if ((connection.state as SocketState | null)?.user === this.parts.owner.id) return message;
    let narrowed = this.membersView.get(message);
    if (!narrowed) {
      const rules = message.rules.filter((r) => r.scope !== "all");
      narrowed = { type: "always_allowed", tools: message.tools, ...(rules.length > 0 ? { rules } : {}) };
      this.membersView.set(message, narrowed);
    }
    return narrowed;
  }

  protected approverIds(): string[] {
    return this.members
      .list()
      .filter((m) => m.role === "approver" && m.userId !== undefined)
      .map((m) => m.userId as string);
  }

  protected answererFor(user: string): { by?: PersonRef } | undefined {
    const person = this.personFor(user);
    if (!person || !can(person.role, "answer")) return undefined;
    // Named as a page's answer is (session-frames.ts): only in a chat shared with someone.
    return this.shared ? { by: { key: person.key, name: person.name } } : {};
  }

  /** The person behind `user` in this chat, or undefined when they are not (or no longer) in it. */
  protected personFor(user: string): SocketPerson | undefined {
    if (user === this.parts.owner.id) {
      const key = this.parts.store.getSetting<string>(OWNER_KEY_SETTING) ?? "";
      return { user, key, name: this.parts.owner.name ?? "the owner", role: "owner" };
    }
    const member = this.members.byUser(user);
    return member ? { user, key: member.key, name: member.name, role: member.role } : undefined;
  }

  protected personOf(connection: Connection): SocketPerson | undefined {
    const state = connection.state as SocketState | null;
    return typeof state?.user === "string" ? this.personFor(state.user) : undefined;
  }

  /** A participant's message counts against their own rate too, first, so an invitee cannot spend the owner's. */
  protected async admitSender(person: SocketPerson): Promise<Extract<ServerMessage, { type: "error" }> | undefined> {
    if (person.role === "owner") return undefined;
    const { RATE_LIMIT_PER_MINUTE: perMinute, RATE_LIMIT_BURST: burst } = this.runtime.settings;
    const decision = await userAccount(this.env, person.user).admit("turn", { perMinute, burst });
    return decision.ok ? undefined : { type: "error", code: decision.code, message: decision.message };
  }

  protected startedBy(turnId: string | undefined, user: string): void {
    this.starter = turnId ? { turnId, user } : undefined;
  }

  protected startedTurn(user: string): boolean {
    const running = this.parts.turns.running;
    return running !== undefined && this.starter?.turnId === running && this.starter.user === user;
  }

  /** Presence changed (a socket came, went or hid its page): one `people` frame soon, if anyone is invited. */
  protected presenceChanged(): void {
    if (this.shared) this.presenceSend.schedule();
  }

  private sendPeople(): void {
    const ownerId = this.parts.owner.id;
    if (!ownerId) return;
    const owner = { id: ownerId, key: this.parts.store.getSetting<string>(OWNER_KEY_SETTING) ?? "", name: this.parts.owner.name ?? "the owner" };
    const sockets = this.openSockets();
    const members = this.members.list();
    const frames = new Map<boolean, string>();
    for (const socket of sockets) {
      const forOwner = (socket.state as SocketState | null)?.user === ownerId;
      let frame = frames.get(forOwner);
      if (frame === undefined) {
        frame = JSON.stringify(peopleFrame(owner, members, sockets, forOwner));
        frames.set(forOwner, frame);
      }
      socket.send(frame);
    }
  }

  private socketsOf(user: string): Connection[] {
    return this.openSockets().filter((s) => (s.state as SocketState | null)?.user === user);
  }

  /** The member's "Shared with me" list carries this chat (once their id is known). */
  private async listFor(member: Member): Promise<void> {
    if (!member.userId) return;
    const ownerName = this.parts.owner.name ?? "someone";
    await userAccount(this.env, member.userId).putSharedChat({ sessionId: this.name, ownerName, role: member.role, addedAt: Date.now() });
  }

  // ---- RPC for the people routes (the Worker checked the caller owns this chat) ----

  peopleView(): PeopleView {
    const sockets = this.openSockets();
    const here = new Set(sockets.map((s) => (s.state as SocketState | null)?.user).filter((u): u is string => typeof u === "string"));
    const owner = this.personFor(this.parts.owner.id ?? "");
    return {
      owner: { key: owner?.key ?? "", name: owner?.name ?? "the owner" },
      members: this.members.list().map((m) => ({
        key: m.key,
        name: m.name,
        role: m.role,
        joined: m.joinedAt !== undefined,
        here: m.userId !== undefined && here.has(m.userId),
      })),
      cap: this.runtime.settings.INVITES_PER_CHAT,
    };
  }

  async invite(invitee: { name: string; userId?: string }, role: MemberRole): Promise<{ member: MemberView; created: boolean } | Refused> {
    const invited = await this.members.invite(invitee.name, invitee.userId, role, this.runtime.settings.INVITES_PER_CHAT);
    if (!invited.ok) return { refused: { code: invited.code, message: invited.message } };
    await this.listFor(invited.member);
    if (!invited.created) this.roleChanged(invited.member);
    else this.presenceSend.flush();
    return { member: this.viewOf(invited.member), created: invited.created };
  }

  async setMemberRole(key: string, role: MemberRole): Promise<MemberView | undefined> {
    const member = this.members.setRole(key, role);
    if (!member) return undefined;
    await this.listFor(member);
    this.roleChanged(member);
    return this.viewOf(member);
  }

  /** Their sockets close (4403), their list forgets the chat, everyone left hears who is here. */
  async removeMember(key: string): Promise<boolean> {
    const member = this.members.remove(key);
    if (!member) return false;
    if (member.userId) {
      for (const socket of this.socketsOf(member.userId)) socket.close(REMOVED_CLOSE, REMOVED_REASON);
      await userAccount(this.env, member.userId).removeSharedChat(this.name);
    }
    this.log.info("member removed", { role: member.role });
    this.presenceSend.flush();
    return true;
  }

  private roleChanged(member: Member): void {
    if (member.userId)
      for (const socket of this.socketsOf(member.userId)) this.sendTo(socket, { type: "you", key: member.key, name: member.name, role: member.role });
    this.presenceSend.flush();
  }

  private viewOf(member: Member): MemberView {
    const here = member.userId !== undefined && this.socketsOf(member.userId).length > 0;
    return { key: member.key, name: member.name, role: member.role, joined: member.joinedAt !== undefined, here };
  }

  /** The chat goes: so does every invite, and the chat from each member's list. */
  override async deleteSession(): Promise<void> {
    await super.deleteSession();
    const gone = this.members.clear();
    await Promise.all(gone.map((m) => (m.userId ? userAccount(this.env, m.userId).removeSharedChat(this.name) : undefined)));
  }
}
