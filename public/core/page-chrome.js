// The page's chrome around the chat: the sidebar menu (a drawer on a phone), the tool
// console beside the chat, and Escape closing whichever of them holds the focus. On a
// phone only one of the two is open at a time. app.js wires it.
import { byId as $ } from "./dom.js";

const phone = () => matchMedia("(max-width: 760px)").matches;

/**
 * @param {{ loadConsole: () => unknown }} parts `loadConsole`: the console's tool list, read when it first opens
 * @returns {{ setMenu: (open: boolean) => void, setConsole: (open: boolean, options?: { focus?: boolean }) => void }}
 */
export function setupPageChrome({ loadConsole }) {
  function setMenu(/** @type {boolean} */ open) {
    document.body.classList.toggle("menu-open", open);
    $("menu-toggle").setAttribute("aria-expanded", String(open));
    $("scrim").hidden = !open;
    if (open && phone()) setConsole(false, { focus: false });
  }

  function setConsole(/** @type {boolean} */ open, { focus = true } = {}) {
    const wasOpen = !$("console").hidden;
    $("console").hidden = !open;
    $("console-toggle").setAttribute("aria-expanded", String(open));
    if (open) {
      if (phone()) setMenu(false);
      if (!wasOpen) void loadConsole();
      if (focus) $("console-tool").focus();
    } else if (wasOpen && focus) $("console-toggle").focus();
  }

  $("menu-toggle").addEventListener("click", () => setMenu(!document.body.classList.contains("menu-open")));
  $("scrim").addEventListener("click", () => setMenu(false));
  $("console-toggle").addEventListener("click", () => setConsole($("console").hidden));
  $("console-close").addEventListener("click", () => setConsole(false));
  // A tap outside the open sidebar closes it (not one in a dialog opened from it).
  document.addEventListener("pointerdown", (event) => {
    if (!document.body.classList.contains("menu-open")) return;
    const target = /** @type {Element} */ (event.target);
    if ($("sidebar").contains(target) || $("menu-toggle").contains(target) || target.closest?.("dialog")) return;
    setMenu(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || document.querySelector("dialog[open]")) return;
    const focus = document.activeElement;
    if (!$("console").hidden && ($("console").contains(focus) || focus === document.body || focus === $("console-toggle") || phone())) {
      event.preventDefault();
      setConsole(false);
    } else if (document.body.classList.contains("menu-open")) {
      event.preventDefault();
      setMenu(false);
      $("menu-toggle").focus();
    }
  });

  return { setMenu, setConsole };
}
