// The language switch in the top bar (templates/language_switch.html) is a <details> that
// works without scripts; this only closes it as menus close: on Escape (focus back on its
// button) and on a tap or click anywhere else.

const menu = document.querySelector(".language-menu");

if (menu) {
  const summary = menu.querySelector("summary");
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    menu.open = false;
    summary.focus();
  });
  document.addEventListener("pointerdown", (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
}
