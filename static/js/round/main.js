// The read-only results page of one round (/r/<code>/rounds/<n>/): draws the results the
// server embedded. Nothing here talks to the room: anyone with the link can read it.

import { $ } from "../lib/dom.js";
import { RoundView } from "./view.js";

const view = new RoundView($("#round-view-body"), JSON.parse($("#round-results").textContent));
$("#round-view-summary").textContent = view.summary();
view.render();
