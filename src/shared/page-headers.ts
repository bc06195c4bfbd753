// The headers of a page the Worker renders with no script at all (the operator view, a
// shared conversation): nothing runs, nothing is framed, nothing leaks by referrer,
// nothing is cached or indexed, no type is guessed.

/** `images`: where the page's images may come from (its own files, or data: URLs it holds). */
export function scriptlessPageHeaders(images: "'self'" | "data:"): Record<string, string> {
  return {
    "Content-Security-Policy": `default-src 'none'; style-src 'self'; img-src ${images}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
  };
}
