// The text of the answer a running turn is streaming, before the model step ends and
// the answer is stored as an entry. Kept in memory so a page that joins mid-answer (a
// reload, a second tab) is sent what it missed, and saved to storage at most once a
// second, the first time a second after the answer began, so an answer cut off by a
// restart keeps its text, marked cut short. Up to a second of text may be lost in a
// crash. Not at its first delta: an answer that takes less than a second (most tool
// steps' short answers) then writes nothing until it is stored whole, where a save at
// once cost every turn a commit of its own (its first text waited for it, and the
// turn's end for a second one after it).
import type { HistoryStore } from "./history";

const KEY = "streamedText";
const SAVE_EVERY_MS = 1_000;

export interface Streamed {
  turnId: string;
  messageId: string;
  text: string;
}

export class StreamedText {
  private current?: Streamed;
  private savedAt = 0;
  private saved = false;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly store: Pick<HistoryStore, "getSetting" | "setSetting">,
    private readonly now: () => number = Date.now,
  ) {}

  add(turnId: string, messageId: string, delta: string): void {
    if (this.current?.messageId !== messageId) {
      this.current = { turnId, messageId, text: "" };
      this.savedAt = this.now();
    }
    this.current.text += delta;
    const wait = this.savedAt + SAVE_EVERY_MS - this.now();
    if (wait <= 0) this.save();
    else this.timer ??= setTimeout(() => this.save(), wait);
  }

  /** What a page joining now missed of the answer being streamed. */
  soFar(): Streamed | undefined {
    return this.current?.text ? { ...this.current } : undefined;
  }

  /** The answer was stored as an entry (or the turn ended): nothing is in flight. */
  settle(): void {
    this.current = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.saved) this.store.setSetting(KEY, undefined);
    this.saved = false;
  }

  /** After a restart: the text turn `turnId` had streamed when it was cut off, once. */
  takeSaved(turnId: string): string | undefined {
    const saved = this.store.getSetting<Streamed>(KEY);
    this.store.setSetting(KEY, undefined);
    return saved?.turnId === turnId && saved.text ? saved.text : undefined;
  }

  private save(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.current) return;
    this.savedAt = this.now();
    this.saved = true;
    this.store.setSetting(KEY, this.current);
  }
}
