// "when `path` is under notes/": a lexical, conservative check of a path argument against a
// folder. The Worker cannot see the server's disk, so anything it cannot judge by the text
// alone means "ask": no match is never a refusal of the call, only a question to the person.
//
// The documented rules (docs/rules.md):
// - Refused (asked) forms: not a string, over 4,096 characters, control characters (NUL
//   included), backslashes (a Windows separator here, a name character there), a scheme
//   (`file://`), a `:` in a segment (drive letters, NTFS streams), a leading `~` (home
//   expansion), `$` or `%` (environment variables, percent-encoding a server might decode),
//   a segment ending in `.` or a space (Windows strips them: `notes.` is `notes`), `~<digit>`
//   (8.3 short names), dots-only segments other than `.` and `..`.
// - Then: repeated slashes and `.` segments drop, `..` takes the previous segment off;
//   climbing above the start (`notes/../../x`, `/..`) is refused.
// - No case folding and no Unicode normalisation: `Notes/a` is not under `notes/` (on a
//   case-insensitive disk it is the same folder and merely asks; on a case-sensitive one it is
//   another folder and must not pass).
// - A relative rule matches only relative paths and an absolute rule only absolute ones: the
//   Worker does not know the server's working folder, so it cannot relate the two.
// - Symlinks inside the folder are followed by the server; a rule cannot see them.

export const MAX_PATH_CHARS = 4096;

export interface NormalPath {
  absolute: boolean;
  segments: string[];
}

export type PathResult = { ok: true; path: NormalPath } | { ok: false; why: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a path cannot be judged, or its normal form. */
export function normalisePath(value: unknown): PathResult {
  if (typeof value !== "string") return { ok: false, why: "not a string" };
  if (value.length === 0) return { ok: false, why: "empty" };
  if (value.length > MAX_PATH_CHARS) return { ok: false, why: `longer than ${MAX_PATH_CHARS} characters` };
  if (CONTROL.test(value)) return { ok: false, why: "it holds a control character" };
  if (value.includes("\\")) return { ok: false, why: "it holds a backslash" };
  if (value.includes("://")) return { ok: false, why: "it is a URL, not a path" };
  if (value.startsWith("~")) return { ok: false, why: "a leading ~ is expanded by the server" };
  if (/[$%]/.test(value)) return { ok: false, why: "$ or % may be expanded or decoded by the server" };
  const absolute = value.startsWith("/");
  const segments: string[] = [];
  for (const segment of value.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.pop() === undefined) return { ok: false, why: "it climbs above where it starts" };
      continue;
    }
    if (/^\.+$/.test(segment)) return { ok: false, why: `the segment "${segment}" is only dots` };
    if (segment.includes(":")) return { ok: false, why: `the segment "${segment}" holds a colon` };
    if (/[. ]$/.test(segment)) return { ok: false, why: `the segment "${segment}" ends in a dot or a space` };
    if (/~\d/.test(segment)) return { ok: false, why: `the segment "${segment}" looks like a short (8.3) name` };
    segments.push(segment);
  }
  return { ok: true, path: { absolute, segments } };
}

/** The folder of a rule: a path that normalises and names at least one segment (never "under /"). */
export function normaliseFolder(value: unknown): PathResult {
  const result = normalisePath(value);
  if (result.ok && result.path.segments.length === 0) return { ok: false, why: "a rule needs a folder, not the root or the current folder" };
  return result;
}

/** The folder as the person reads it: `notes/`, `/srv/data/`. */
export function folderText(folder: NormalPath): string {
  return `${folder.absolute ? "/" : ""}${folder.segments.join("/")}/`;
}

/** True when `value` is the folder itself or anything under it, judged lexically (see the header). */
export function pathUnder(folder: NormalPath, value: unknown): boolean {
  const result = normalisePath(value);
  return result.ok && normalUnder(folder, result.path);
}

/** The same for a path normalised already (a call's argument is normalised once for all the rules of its tool). */
export function normalUnder(folder: NormalPath, path: NormalPath): boolean {
  if (path.absolute !== folder.absolute || path.segments.length < folder.segments.length) return false;
  return folder.segments.every((segment, i) => path.segments[i] === segment);
}
