// The Solve page's two tabs, "Every word" and "Check our lists", as ARIA tabs: the arrow
// keys (and Home, End) move between them, the selected one is the one Tab reaches.

export class Tabs {
  /** `tablist`: the role=tablist element; `onChange(name)` after a tab is chosen. */
  constructor(tablist, { onChange = () => {} } = {}) {
    this.tabs = [...tablist.querySelectorAll("[role=tab]")];
    this.onChange = onChange;
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.select(tab.dataset.tab));
      tab.addEventListener("keydown", (event) => {
        const index = this.tabs.indexOf(tab);
        const last = this.tabs.length - 1;
        const target = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: last }[event.key];
        if (target === undefined) return;
        event.preventDefault();
        const next = this.tabs[(target + this.tabs.length) % this.tabs.length];
        this.select(next.dataset.tab);
        next.focus();
      });
    }
  }

  get selected() {
    const tab = this.tabs.find((item) => item.getAttribute("aria-selected") === "true");
    return tab ? tab.dataset.tab : null;
  }

  select(name) {
    const changed = name !== this.selected;
    for (const tab of this.tabs) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(tab.getAttribute("aria-controls")).hidden = !on;
    }
    if (changed) this.onChange(name);
  }
}
