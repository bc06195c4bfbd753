// What kind of URL a configured value is, for mcp.json's checks (config.ts, oauth-config.ts).

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** A local `file://` URI (no host, or localhost), as roots are given. */
export function isFileUri(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "file:" && (url.hostname === "" || url.hostname === "localhost") && value.startsWith("file://");
  } catch {
    return false;
  }
}
