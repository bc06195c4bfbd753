// What an idle chat with one daily schedule costs a day (issue 39, Speed), measured in workerd:
// DAYS days lived with the clock moved and every alarm fired at its time
// (tests/workers/session/schedule-days.ts), each object's writes metered where the platform
// counts them (tests/workers/storage-meter.ts). Baseline from the same run: the same turn
// typed on an open page. Prints lines prefixed `cost|` for bench/schedule.ts; asserts nothing
// but that it ran (the bounds are tests/workers/session/schedule-cost.test.ts).
// Run: npm run bench:schedule -- --cost
import { it, vi } from "vitest";
import { DAY_MS, type Day, done, idleChatWith, liveDay } from "../../tests/workers/session/schedule-days";
import { billedRows, type StorageCounts, sum } from "../../tests/workers/storage-meter";

const DAYS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
const print = (line: string) => console.log(`cost| ${line}`);

/** `table rows, …` with the KV keys and alarm sets, largest first. */
function detail(c: StorageCounts): string {
  const parts = Object.entries(c.sqlWritten)
    .sort((a, b) => b[1] - a[1])
    .map(([t, n]) => `${t} ${n}`);
  if (c.kvKeys > 0) parts.push(`KV keys ${c.kvKeys}`);
  if (c.alarmSets > 0) parts.push(`setAlarm ${c.alarmSets}`);
  return parts.join(", ") || "nothing";
}

const line = (what: string, c: StorageCounts) =>
  `${what}: ${billedRows(c)} rows billed as written (SQL ${sum(c.sqlWritten)}: ${detail(c)}); ${c.rowsRead} rows read`;

it(`lives ${DAYS} days of an idle chat with one daily schedule`, async () => {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  const hour = `${String((new Date().getUTCHours() + 12) % 24).padStart(2, "0")}:00`;
  const chat = await idleChatWith("frank", { when: `daily ${hour}`, timeZone: "UTC", text: "summarise new files" });
  const sizeOf = () => chat.meters.chat.look((_i, state) => state.storage.sql.databaseSize);
  const first = Math.floor(chat.firstRun / DAY_MS) * DAY_MS;
  const days: Day[] = [];
  const sizes = [await sizeOf()];
  for (let d = 0; d < DAYS; d++) {
    days.push(await liveDay(chat, first + d * DAY_MS));
    sizes.push(await sizeOf());
  }
  await done(chat);
  const typical = (part: "chat" | "account" | "operations") => {
    const billed = days.map((d) => billedRows(d[part]));
    // The day with the median billed rows stands for them all (they differ by a row or two at most).
    return days[billed.indexOf(median(billed))]?.[part] as StorageCounts;
  };
  const wakes = days.map((d) => d.wakes.length);
  print(`${DAYS} days lived in workerd, the clock moved to each alarm (daily ${hour} UTC, a one-line answer, no tools, no push devices, no page open)`);
  print(`alarm wakes per day: ${wakes.join(", ")} (jobs: ${[...new Set(days.flatMap((d) => d.wakes.flatMap((w) => w.jobs)))].join(", ")})`);
  for (const part of ["chat", "account", "operations"] as const) {
    const billed = days.map((d) => billedRows(d[part]));
    print(`${line(`${part} per day (median of ${billed.join(", ")})`, typical(part))}`);
    // A day off the median says where its rows went.
    days.forEach((d, i) => {
      if (billed[i] !== median(billed)) print(`  day ${i + 1}: ${detail(d[part])}; wakes' own ${d.wakes.map((w) => billedRows(w[part])).join(", ")}`);
    });
  }
  const total = days.map((d) => billedRows(d.chat) + billedRows(d.account) + billedRows(d.operations));
  print(`all three objects: ${median(total)} rows billed as written per day (median; min ${Math.min(...total)}, max ${Math.max(...total)})`);
  const growth = sizes.slice(1).map((s, i) => s - (sizes[i] ?? s));
  print(`chat database (SQLite pages): ${sizes[0]} -> ${sizes[DAYS]} bytes, ${growth.join(", ")} a day`);
  print(`baseline (same run), the same turn typed on an open page: ${line("chat", chat.typedTurn.chat)}`);
  print(`  ${line("account", chat.typedTurn.account)}; ${line("operations", chat.typedTurn.operations)}`);
});
