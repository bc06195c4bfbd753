// Names scripts/build-page.mjs replaces in the built page (rolldown's define); from source they are undefined.

/** The URL of the built highlight worker (assets/highlight-worker-<hash>.js). */
declare const HIGHLIGHT_WORKER: string | undefined;
