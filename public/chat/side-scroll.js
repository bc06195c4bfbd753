// A code block or table wider than its column scrolls sideways, and only such a one: a
// scroll container costs every frame of a streaming answer its own property nodes in the
// browser's pre-paint and paint, so the many that fit are plain boxes (issue 37). One that
// scrolls must be reachable by the keyboard, or a keyboard user cannot read its long lines
// (axe: scrollable-region-focusable), so it gets a Tab stop; its `tabindex` is also what
// makes it a scroller in CSS (code-looks.css, messages.css). Whether it is wider changes
// with the window and while an answer streams, so one ResizeObserver watches them all.

/** @param {HTMLElement} box @param {boolean} scrolls */
function mark(box, scrolls) {
  if (scrolls === (box.tabIndex === 0)) return;
  if (scrolls) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", label(box));
  } else {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
}

/** @param {HTMLElement} box */
function label(box) {
  if (box.tagName === "TABLE") return "Table, scrolls sideways";
  const lang = box.closest(".code-block")?.getAttribute("data-lang");
  return lang ? `${lang} code, scrolls sideways` : "Code, scrolls sideways";
}

// All widths are read before any attribute is written: a write between two reads would make
// each read lay the page out again (dozens of blocks resize at once when the window does).
// A box that is not a scroller still reports its content's width as scrollWidth.
const watcher = new ResizeObserver((entries) => {
  /** @type {[HTMLElement, boolean][]} */
  const seen = [];
  for (const entry of entries) {
    const box = /** @type {HTMLElement} */ (entry.target);
    // A block replaced while its answer streamed: no longer watched.
    if (!box.isConnected) watcher.unobserve(box);
    else seen.push([box, box.scrollWidth > box.clientWidth]);
  }
  for (const [box, scrolls] of seen) mark(box, scrolls);
});

/** Watches a code block's <pre> or a table from now on (it may not be in the page yet). @param {HTMLElement} box */
export function watchSideScroll(box) {
  watcher.observe(box);
}
