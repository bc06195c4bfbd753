// What a session tells its owner's search index (src/users/session-search.ts): the text
// of user and assistant messages written since the last report, sent once a turn has
// ended (its question and its answers together), outside the turn's path, at most once
// every two seconds. The last seq
// the account confirmed is kept in the session's storage, so a report that failed (or a
// wake-up in between) is sent again with the next one, never lost. It is written with
// the next report's first step, in the commit the turn's end makes anyway, not in a
// commit of its own after the account answers: a restart in between sends the last
// turn's messages again, and the index replaces a message sent twice (same session and
// seq), so nothing is counted twice either.
import type { HistoryStore } from "./history";
import type { IndexedMessage } from "../users/session-search";

const SENT_KEY = "searchIndexedSeq";
const FLUSH_GAP_MS = 2_000;

interface Account {
  indexMessages(id: string, messages: IndexedMessage[]): Promise<void>;
  unindexMessages(id: string): Promise<void>;
}

export interface SearchFeedDeps {
  sessionId: string;
  store: HistoryStore;
  /** The owner's account when the session is listed (searchable); undefined otherwise. */
  account: () => Account | undefined;
  keepAliveWhile: <T>(work: () => Promise<T>) => Promise<T>;
}

export class SearchFeed {
  private chain: Promise<void> = Promise.resolve();
  /** The newest seq the account confirmed, not yet in storage. */
  private confirmed = 0;
  private lastSent = 0;
  /** A report waiting for its turn (flush). */
  private due?: Promise<void>;

  constructor(private readonly deps: SearchFeedDeps) {}

  /**
   * Sends what is new, after any report still on its way (reports go in order), at most once
   * every FLUSH_GAP_MS: turns in quick succession (a person typing fast, work that runs on
   * its own) are indexed together, and the account is not busy indexing one turn while the
   * next asks it for admission.
   */
  flush(): void {
    if (this.due) return;
    const wait = this.lastSent + FLUSH_GAP_MS - Date.now();
    if (wait <= 0) return this.sendNow();
    this.due = new Promise<void>((resolve) =>
      setTimeout(() => {
        this.due = undefined;
        this.sendNow();
        resolve();
      }, wait),
    );
  }

  private sendNow(): void {
    this.lastSent = Date.now();
    this.chain = this.chain.then(() => this.deps.keepAliveWhile(() => this.send()).catch(() => undefined));
  }

  /** The history was cleared: its messages leave the index. */
  forget(): void {
    const account = this.deps.account();
    if (!account) return;
    this.chain = this.chain.then(() => this.deps.keepAliveWhile(() => account.unindexMessages(this.deps.sessionId)).catch(() => undefined));
  }

  /** Settles once every report asked for so far went (tests and imports wait on it). */
  async settled(): Promise<void> {
    await this.due;
    await this.chain;
  }

  private async send(): Promise<void> {
    const account = this.deps.account();
    if (!account) return;
    const stored = this.deps.store.getSetting<number>(SENT_KEY) ?? 0;
    if (this.confirmed > stored) this.deps.store.setSetting(SENT_KEY, this.confirmed);
    const sent = Math.max(stored, this.confirmed);
    const fresh = this.deps.store.allEntries().filter((e) => e.seq > sent);
    if (fresh.length === 0) return;
    // A held task's follow-up is the model's own message, not the person's words: not theirs to find.
    const messages = fresh.flatMap((e): IndexedMessage[] =>
      (e.kind === "user" || e.kind === "assistant") && e.text && !e.task
        ? [{ seq: e.seq, kind: e.kind === "user" && e.scheduled ? "schedule" : e.kind, text: e.text }]
        : [],
    );
    if (messages.length > 0) await account.indexMessages(this.deps.sessionId, messages);
    this.confirmed = Math.max(this.confirmed, ...fresh.map((e) => e.seq));
  }
}
