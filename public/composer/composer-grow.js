// The message box grows with its text, from its two rows up to 40% of the window's
// height (style: chat-looks.css), then scrolls. Its height is set through the CSSOM
// (allowed under a style-src policy), after each edit and each time the page itself
// changes the text (sent, put back, cleared).
import { byId } from "../core/dom.js";

const input = byId("composer-input");

/** Fits the box to its text. */
export function fitComposer() {
  input.style.height = "auto";
  const border = input.offsetHeight - input.clientHeight;
  const max = Math.round(window.innerHeight * 0.4);
  const wanted = input.scrollHeight + border;
  input.style.height = `${Math.min(wanted, max)}px`;
  input.style.overflowY = wanted > max ? "auto" : "hidden";
}

input.addEventListener("input", fitComposer);
// After every submit handler has run (composer.js empties the box in its own), before the next paint.
byId("composer").addEventListener("submit", () => requestAnimationFrame(fitComposer));
window.addEventListener("resize", fitComposer, { passive: true });
