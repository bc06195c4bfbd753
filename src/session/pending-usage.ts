// A session's model tokens not yet added to its owner's daily figure.
//
// Why not report them when the turn ends: that is a second call to the account per
// turn (an event there and a storage commit), on top of the one admitting the next
// turn. Instead, under a daily budget, the next turn's admission carries them
// (UserAccount.beginTurn adds them before it checks the budget, so this session's own
// spending is always counted before its next turn); without one, and when no turn comes,
// they go on their own shortly after (session-owner.ts: a write the admission's answer
// would wait for stays off the turn's path).
// The figure is kept in the session's storage, written with the turn's last entries
// (the same commit), so a restart reports it instead of losing it.
import type { HistoryStore } from "./history";

const KEY = "unreportedTokens";

export class PendingUsage {
  /** Taken by a call to the account that has not answered yet. */
  private sending = 0;

  constructor(private readonly store: HistoryStore) {}

  /** All tokens not yet confirmed by the account, including those on their way. */
  get total(): number {
    return this.store.getSetting<number>(KEY) ?? 0;
  }

  add(tokens: number): void {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    this.store.setSetting(KEY, this.total + Math.round(tokens));
  }

  /** Tokens no call carries yet. */
  get unsent(): number {
    return this.total - this.sending;
  }

  /**
   * Hands what no call carries yet to `call`; once it answered, those tokens are the
   * account's (a call that fails leaves them for the next one). `later` runs the write of
   * what is left (at once unless told: a turn's admission writes after its model request,
   * session-owner.ts); until it ran, the tokens count as on their way.
   */
  async carry<T>(call: (tokens: number) => Promise<T>, later: (write: () => void) => void = (write) => write()): Promise<T> {
    const tokens = this.unsent;
    this.sending += tokens;
    let answer: T;
    try {
      answer = await call(tokens);
    } catch (error) {
      this.sending -= tokens;
      throw error;
    }
    later(() => {
      const left = this.total - tokens;
      if (tokens > 0) this.store.setSetting(KEY, left > 0 ? left : undefined);
      this.sending -= tokens;
    });
    return answer;
  }
}
