// The page's date groups of the session list (public/sessions/session-groups.js), at the edges
// of each day in the machine's own time zone: the module is plain JavaScript with no DOM.
import { describe, expect, it } from "vitest";

type Session = { id: string; lastActivity?: number; pinned?: boolean };
// The page's modules are checked as JavaScript on their own (public/tsconfig.json): loaded here by path, typed by hand.
const modulePath = "../../public/sessions/session-groups.js";
const { groupSessions } = (await import(modulePath)) as { groupSessions: (list: Session[], now: number) => { label: string; sessions: Session[] }[] };

const at = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min).getTime();

describe("session groups", () => {
  it("puts pinned sessions first, then today, yesterday, the last 7 days and older, by local midnight", () => {
    const now = at(2026, 3, 10, 9, 30);
    const list = [
      { id: "pinned-old", lastActivity: at(2025, 1, 1), pinned: true },
      { id: "today-start", lastActivity: at(2026, 3, 10, 0, 0) },
      { id: "yesterday-end", lastActivity: at(2026, 3, 9, 23, 59) },
      { id: "yesterday-start", lastActivity: at(2026, 3, 9, 0, 0) },
      { id: "six-days", lastActivity: at(2026, 3, 4, 0, 0) },
      { id: "seven-days", lastActivity: at(2026, 3, 3, 23, 59) },
      { id: "new", lastActivity: undefined },
    ];
    const groups = groupSessions(list, now).map((g) => [g.label, g.sessions.map((s) => s.id)]);
    expect(groups).toEqual([
      ["Pinned", ["pinned-old"]],
      ["Today", ["today-start", "new"]],
      ["Yesterday", ["yesterday-end", "yesterday-start"]],
      ["Last 7 days", ["six-days"]],
      ["Older", ["seven-days"]],
    ]);
  });

  it("leaves out empty groups", () => {
    expect(groupSessions([], Date.now())).toEqual([]);
  });
});
