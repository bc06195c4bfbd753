// The one command that gives a deployment without a model its model, for how this
// Worker runs (GET /api/models' `setup`: `local` is `wrangler dev`, served on loopback).
// Plain data in, Markdown out (no DOM): tests/page checks each case.

/** @typedef {{ running: "local" | "deployed", variable: string, secret: boolean }} ModelSetup */

/** A value's placeholder in a command: what to put there, not a real value. */
const placeholder = (/** @type {string} */ variable) => (variable.endsWith("_KEY") ? "your-key" : "…");

/**
 * One line of inline Markdown: what to run (or set), and what then.
 * @param {ModelSetup} setup
 */
export function setupLine(setup) {
  const { running, variable, secret } = setup;
  if (running === "local") {
    // `wrangler dev` reads .dev.vars only when it starts; a later line wins over a blank `KEY=` above it.
    return secret
      ? `Run \`echo '${variable}=${placeholder(variable)}' >> .dev.vars\`, then restart \`npm run dev\`.`
      : `Set \`${variable}\` in \`.dev.vars\`, then restart \`npm run dev\`.`;
  }
  // A secret put deploys at once; a plain variable lives in wrangler.toml and needs a deploy.
  return secret
    ? `Run \`npx wrangler secret put ${variable}\`.`
    : `Set \`${variable}\` under \`[vars]\` in \`wrangler.toml\`, then run \`npx wrangler deploy\`.`;
}

/** Where to get what the command needs, when the page knows (a Gemini key). @param {ModelSetup} setup */
export function keyLink(setup) {
  return setup.variable === "GEMINI_API_KEY" ? "https://aistudio.google.com/apikey" : null;
}
