// A session's model tokens not yet added to its owner's daily figure.
//
// Why not report them when the turn ends: that is a second call to the account per
// turn (an event there and a storage commit), on top of the one admitting the next
// turn. Instead the next turn's admission carries them (UserAccount.beginTurn adds
// them before it checks the budget, so this session's own spending is always counted
// before its next turn), and when no turn comes they go on their own shortly after.
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

  /** What no call carries yet, for the next one; `settle` says whether the account took it. */
  take(): { tokens: number; settle(taken: boolean): void } {
    const tokens = this.total - this.sending;
    this.sending += tokens;
    let settled = false;
    return {
      tokens,
      settle: (taken) => {
        if (settled) return;
        settled = true;
        this.sending -= tokens;
        if (taken && tokens > 0) {
          const left = this.total - tokens;
          this.store.setSetting(KEY, left > 0 ? left : undefined);
        }
      },
    };
  }
}
