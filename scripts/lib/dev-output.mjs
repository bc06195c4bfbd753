// What `npm run dev` shows of the Worker's output, and the dev-only settings it runs
// with. wrangler dev prints a line per request ("[wrangler:info] GET /x 200 OK (5ms)")
// and the Worker logs one more ({"msg":"request"}, {"msg":"socket opened"}): in a
// 17-minute session that was 1,835 of 2,634 lines. wrangler has no switch for the
// first alone (--log-level warn hides "Ready on" and the Worker's own info lines
// too), so those lines are dropped here; a request that failed (5xx) still shows,
// as do warnings, errors and the Worker's one "turn ended" line per turn.

/** The Worker's info lines written for every request; anything else it logs is shown. */
const PER_REQUEST = new Set(["request", "socket opened"]);

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colour codes
const COLOUR = /\x1b\[[0-9;]*m/g;
const REQUEST = /^\[wrangler:info\] [A-Z]+ \S+ (\d{3})\b/;

/** False for a line `npm run dev` leaves out: a request that did not fail, as wrangler or the Worker logged it. */
export function showWorkerLine(line) {
  const plain = line.replace(COLOUR, "");
  const request = REQUEST.exec(plain);
  if (request) return Number(request[1]) >= 500;
  if (!plain.startsWith("{")) return true;
  try {
    const entry = JSON.parse(plain);
    return !(entry?.level === "info" && PER_REQUEST.has(entry.msg));
  } catch {
    return true;
  }
}

/**
 * Settings `npm run dev` gives the Worker unless .dev.vars names them: one developer
 * typing fast sends more than the deployed burst of 5 messages (src/config/settings.ts
 * keeps the deployed defaults; docs/configuration.md lists both).
 */
export const DEV_DEFAULTS = Object.freeze({
  RATE_LIMIT_BURST: "30",
  RATE_LIMIT_PER_MINUTE: "120",
});

/** The names a .dev.vars text sets (NAME=value lines; comments and blanks skipped). */
export function devVarNames(text) {
  const names = new Set();
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    if (match?.[1]) names.add(match[1]);
  }
  return names;
}
