// Types of scripts/build-page.mjs for the TypeScript that imports it (the tests' global setups).
/** dist/page: wrangler's assets directory. */
export declare const outDir: string;
/** Whether public/ (or the build script) changed since dist/page was built. */
export declare function isStale(): boolean;
/** Builds dist/page; resolves to a one-line summary (names, sizes, time). */
export declare function build(): Promise<string>;
/** index.html's text with each `<!-- include: PATH -->` line replaced by that partial of public/ (less its header comment). */
export declare function withIncludes(html: string): string;
