// ChatSession's alarm callbacks (agents' schedule calls them by name): the idle expiry
// (SESSION_TTL_DAYS), dropping a chat its page left unused, and the held tasks' poll.
// The server retry's callback sits with its scheduling in session-core.ts.
import { errorMessage } from "../shared/logger";
import { SessionRpc } from "./session-rpc";

const DAY_MS = 24 * 60 * 60_000;
const IDLE_SINCE_KEY = "idle_since";

export abstract class SessionAlarms extends SessionRpc {
  // ---- expiry (SESSION_TTL_DAYS) ----

  /** One expiry alarm per session, made on the first socket of a wake when none exists; it moves itself forward when it fires. */
  protected scheduleExpiry(): void {
    const days = this.runtime.settings.SESSION_TTL_DAYS;
    if (!days || this.expiryChecked) return;
    this.expiryChecked = true;
    const expiring = this.getSchedules().some((s) => s.callback === "expireIfIdle");
    if (expiring) return;
    const from = this.lastActivity() ?? Date.now();
    // An empty session counts from now: it never wrote an entry to date it by.
    if (this.parts.store.lastActivity() === undefined) this.parts.store.setSetting(IDLE_SINCE_KEY, from);
    void this.schedule(new Date(from + days * DAY_MS), "expireIfIdle").catch((error: unknown) => {
      this.expiryChecked = false;
      this.log.warn("could not schedule the session's expiry", { error: errorMessage(error) });
    });
  }

  /**
   * Alarm callback: a session idle for SESSION_TTL_DAYS deletes itself (its history and
   * attachments, and its line in the owner's list; the owner stays recorded, so the id is
   * never anyone else's). Otherwise the alarm moves to the new due date. True when deleted.
   */
  async expireIfIdle(_payload?: unknown, _schedule?: unknown, now = Date.now()): Promise<boolean> {
    const days = this.runtime.settings.SESSION_TTL_DAYS;
    if (!days) return false;
    const last = this.lastActivity();
    const due = (last ?? now) + days * DAY_MS;
    if (now < due || this.parts.turns.running || this.openSockets().length > 0) {
      await this.schedule(new Date(Math.max(due, now + 60_000)), "expireIfIdle");
      return false;
    }
    this.log.info("session expired", { idleDays: last === undefined ? days : Math.floor((now - last) / DAY_MS) });
    await this.deleteSession();
    return true;
  }

  /** The newest entry's time, or when an empty session was first seen. */
  private lastActivity(): number | undefined {
    return this.parts.store.lastActivity() ?? this.parts.store.getSetting<number>(IDLE_SINCE_KEY);
  }

  /** Alarm callback: a chat its page left unused (onClose) is deleted if still empty and nobody came back. True when deleted. */
  async dropIfLeftUnused(): Promise<boolean> {
    if (this.openSockets().length > 0 || this.parts.turns.running || this.parts.store.count() > 0) return false;
    this.log.info("unused chat dropped", {});
    await this.deleteSession();
    return true;
  }

  /** Alarm callback: the held tasks' next `tasks/get` is due (tasks/session-tasks.ts). */
  async pollTasks(): Promise<void> {
    await this.keepAliveWhile(() => this.parts.tasks.poll());
  }
}
