// The page's elements, by their id in index.html. Typed `any` on purpose: each caller
// knows which kind of element an id names (an input, a dialog, a list), and the
// type checker cannot see index.html; what is checked are the frames (types.d.ts).
/**
 * @param {string} id
 * @returns {any}
 */
export const byId = (id) => document.getElementById(id);
