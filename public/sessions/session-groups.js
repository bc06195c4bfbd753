// The session list in groups, as chat products show it: pinned first, then by the day of
// their last activity in the reader's own time zone (today, yesterday, the last 7 days,
// older). The server lists pinned sessions first and each group newest first.

const DAY_MS = 24 * 60 * 60_000;

/**
 * @template {{ lastActivity?: number, pinned?: boolean }} T
 * @param {T[]} list newest first
 * @param {number} now
 * @returns {{ label: string, sessions: T[] }[]} only groups that have sessions
 */
export function groupSessions(list, now = Date.now()) {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const today = midnight.getTime();
  const groups = [
    { label: "Pinned", sessions: /** @type {T[]} */ ([]) },
    { label: "Today", sessions: /** @type {T[]} */ ([]) },
    { label: "Yesterday", sessions: /** @type {T[]} */ ([]) },
    { label: "Last 7 days", sessions: /** @type {T[]} */ ([]) },
    { label: "Older", sessions: /** @type {T[]} */ ([]) },
  ];
  for (const s of list) {
    // A session just started has no activity yet: it is today's.
    const at = typeof s.lastActivity === "number" ? s.lastActivity : now;
    const group = s.pinned ? 0 : at >= today ? 1 : at >= today - DAY_MS ? 2 : at >= today - 6 * DAY_MS ? 3 : 4;
    groups[group].sessions.push(s);
  }
  return groups.filter((g) => g.sessions.length > 0);
}
