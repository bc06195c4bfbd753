/** False for a line `npm run dev` leaves out (see dev-output.mjs). */
export function showWorkerLine(line: string): boolean;
/** Settings `npm run dev` gives the Worker unless .dev.vars names them. */
export const DEV_DEFAULTS: Readonly<Record<"RATE_LIMIT_BURST" | "RATE_LIMIT_PER_MINUTE", string>>;
/** The names a .dev.vars text sets. */
export function devVarNames(text: string): Set<string>;
