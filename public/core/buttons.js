// A page button with its accessible name (what a screen reader says, e.g. "Edit
// everything" where the face says only "Edit").
export function button(text, label, onClick, className = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.className = className;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}
