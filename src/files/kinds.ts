// Which files a user may attach, and what each one really is. The browser's claimed
// type (and the name's extension) says what the user meant; the first bytes say what
// the file is. Images (PNG, JPEG, GIF, WebP) and PDFs are recognised by their magic
// bytes, text by decoding as UTF-8 without NUL bytes; a claim the bytes do not bear out
// is refused rather than stored under a type that would mislead the model or the page.
import { FileError, quoted } from "./errors";

export type FileKind = "image" | "pdf" | "text";

export interface Classified {
  kind: FileKind;
  /** The type the file is stored and sent under (never the client's claim unchecked). */
  mimeType: string;
}

/** What the page states before an upload (GET /api/files/limits). */
export const ACCEPTED = {
  image: ["image/png", "image/jpeg", "image/gif", "image/webp"],
  pdf: ["application/pdf"],
  text: "text and code files (UTF-8)",
} as const;

const SIGNATURES: { mimeType: string; kind: FileKind; matches: (b: Uint8Array) => boolean }[] = [
  { mimeType: "image/png", kind: "image", matches: (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mimeType: "image/jpeg", kind: "image", matches: (b) => starts(b, [0xff, 0xd8, 0xff]) },
  { mimeType: "image/gif", kind: "image", matches: (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a") },
  { mimeType: "image/webp", kind: "image", matches: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP") },
  { mimeType: "application/pdf", kind: "pdf", matches: (b) => ascii(b, 0, "%PDF-") },
];

const BINARY_EXTENSIONS: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

// Browsers claim odd types for some code (".ts" is "video/mp2t") or none at all: the extension decides then.
const TEXT_EXTENSIONS = new Set(
  (
    "txt text md markdown rst csv tsv json jsonl ndjson log xml yaml yml toml ini cfg conf env properties " +
    "js mjs cjs ts mts cts tsx jsx py rb go rs java kt kts scala c h cc cpp hpp cs swift m php pl lua r sql sh bash zsh fish ps1 bat " +
    "html htm css scss sass less svg vue svelte diff patch tex bib dockerfile makefile gradle graphql proto tf"
  ).split(" "),
);

const TEXT_TYPES = /^(text\/[\w.+-]+|application\/([\w.+-]+\+)?(json|xml|yaml|x-yaml|javascript|x-sh|x-python|sql|toml|x-httpd-php|ld\+json))$/;

const baseType = (claimed: string): string => claimed.split(";")[0]?.trim().toLowerCase() ?? "";

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  // A name like "Dockerfile" or "Makefile" is its own extension.
  return (dot > 0 ? name.slice(dot + 1) : name).toLowerCase();
}

/** The file's kind and type, or a typed error naming it: wrong kind, or content that is not what it claims. */
export function classify(name: string, claimedType: string, bytes: Uint8Array): Classified {
  const claimed = ALIASES[baseType(claimedType)] ?? baseType(claimedType);
  const ext = extensionOf(name);
  const sniffed = SIGNATURES.find((s) => s.matches(bytes));
  const generic = claimed === "" || claimed === "application/octet-stream";
  const expected = expectedType(claimed, generic, ext);
  if (expected === "text") {
    if (sniffed) throw mismatch(name, claimed || "text", sniffed.mimeType);
    if (!isUtf8Text(bytes)) throw mismatch(name, claimed || "text", "binary data");
    return { kind: "text", mimeType: TEXT_TYPES.test(claimed) ? claimed : "text/plain" };
  }
  if (expected) {
    if (sniffed?.mimeType === expected) return { kind: sniffed.kind, mimeType: sniffed.mimeType };
    throw mismatch(name, expected, sniffed?.mimeType ?? describeBytes(bytes));
  }
  throw new FileError(
    "file_type_unsupported",
    `${quoted(name)} is ${generic ? "of an unknown type" : `of type ${claimed}`}: attach images (PNG, JPEG, GIF, WebP), PDFs, or text and code files`,
  );
}

/**
 * What the user says the file is: the claimed type when it is one we take; the extension when
 * the browser claimed nothing useful (no type, or ".ts" as "video/mp2t"); undefined otherwise.
 */
function expectedType(claimed: string, generic: boolean, ext: string): string | undefined {
  if (ACCEPTED_BINARY.has(claimed)) return claimed;
  if (TEXT_TYPES.test(claimed)) return "text";
  const byExtension = BINARY_EXTENSIONS[ext];
  if (byExtension) return generic ? byExtension : undefined;
  return TEXT_EXTENSIONS.has(ext) ? "text" : undefined;
}

const ALIASES: Record<string, string> = { "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "application/x-pdf": "application/pdf" };

const ACCEPTED_BINARY = new Set<string>([...ACCEPTED.image, ...ACCEPTED.pdf]);

function mismatch(name: string, claimed: string, actual: string): FileError {
  return new FileError("file_content_mismatch", `${quoted(name)} claims to be ${claimed} but its content is ${actual}`);
}

function describeBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) return "empty";
  return isUtf8Text(bytes) ? "text" : "something else";
}

function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function starts(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  return [...text].every((ch, i) => bytes[at + i] === ch.charCodeAt(0));
}

/**
 * A name safe to keep and show: the last path segment, no control or bidirectional
 * override characters (which could disguise "txt.exe" as "exe.txt"), at most 160 characters.
 */
export function cleanName(raw: string): string {
  const last = raw.split(/[\\/]/).pop() ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = last.replace(/[\u0000-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "").trim();
  return (clean || "file").slice(0, 160);
}
