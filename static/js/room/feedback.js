// Feedback beyond the screen during a round: the screen kept awake (Wake Lock API), short
// tones made here with WebAudio (no sound files) and vibration for each verdict and the
// last ten seconds, and a mute switch remembered in this browser. Every API is optional:
// where one is missing or refused, that part quietly does nothing.

import { svg } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { load, save } from "../lib/storage.js";

export const MUTED_KEY = "boggle.muted";

// Tones: [frequency in Hz, seconds] played one after the other.
const TONES = {
  good: [[660, 0.07], [990, 0.1]],
  bad: [[196, 0.16]],
  sent: [[740, 0.06]],
  tick: [[880, 0.05]],
  lastTick: [[1175, 0.08]],
  over: [[784, 0.12], [523, 0.12], [392, 0.25]],
  turn: [[523, 0.08], [784, 0.14]],
};
const VIBRATIONS = {
  good: 25,
  bad: [60, 40, 60],
  sent: 15,
  tick: 15,
  lastTick: 40,
  over: [200, 80, 200],
  turn: [50, 50, 50],
};
const VOLUME = 0.12;

export class Feedback {
  constructor(toggle) {
    this.toggle = toggle;
    this.muted = Boolean(load(MUTED_KEY, false));
    this.audio = null;
    this.lock = null;
    this.wantAwake = false;
    if (toggle) {
      toggle.addEventListener("click", () => this.setMuted(!this.muted));
      this.renderToggle();
    }
    // Browsers let a page make sound only after a tap or a key: start the audio then.
    const unlock = () => this.unlockAudio();
    document.addEventListener("pointerdown", unlock, { capture: true });
    document.addEventListener("keydown", unlock, { capture: true });
    // A wake lock ends when the page is hidden; take it again when the player is back.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.wantAwake) this.keepAwake();
    });
  }

  setMuted(muted) {
    this.muted = muted;
    save(MUTED_KEY, muted);
    this.renderToggle();
    if (!muted) this.play("sent");
  }

  renderToggle() {
    const toggle = this.toggle;
    toggle.setAttribute("aria-pressed", String(this.muted));
    toggle.title = this.muted ? gettext("Sound and vibration off") : gettext("Sound and vibration on");
    toggle.dataset.muted = String(this.muted);
    const icon = svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", width: 22, height: 22 });
    icon.append(svg("path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }));
    if (this.muted) {
      icon.append(svg("path", { d: "M16 9l5 6M21 9l-5 6", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", fill: "none" }));
    } else {
      icon.append(svg("path", { d: "M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", fill: "none" }));
    }
    toggle.replaceChildren(icon);
  }

  // ---------------------------------------------------------------- the screen

  /** From the board's arrival to the round's end the screen stays on. */
  async keepAwake() {
    this.wantAwake = true;
    if (this.lock || this.requesting || !navigator.wakeLock || document.visibilityState !== "visible") return;
    this.requesting = true;
    try {
      const lock = await navigator.wakeLock.request("screen");
      if (!this.wantAwake) {
        lock.release().catch(() => {});
        return;
      }
      this.lock = lock;
      lock.addEventListener?.("release", () => {
        if (this.lock === lock) this.lock = null;
      });
    } catch {
      // Refused (battery saver, no permission, hidden page): the screen may sleep.
      this.lock = null;
    } finally {
      this.requesting = false;
    }
  }

  letSleep() {
    this.wantAwake = false;
    const lock = this.lock;
    this.lock = null;
    if (lock) Promise.resolve(lock.release()).catch(() => {});
  }

  // ---------------------------------------------------------------- sound and vibration

  unlockAudio() {
    if (this.muted) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      if (!this.audio) this.audio = new Context();
      if (this.audio.state === "suspended") this.audio.resume().catch(() => {});
    } catch {
      this.audio = null;
    }
  }

  /** A verdict: "good", "bad" or "sent" (verdicts come with the results). */
  verdict(kind) {
    this.play(kind in TONES ? kind : "bad");
  }

  /** A second of the last ten: a tick, higher for the last three. */
  secondsLeft(seconds) {
    this.play(seconds <= 3 ? "lastTick" : "tick");
  }

  roundOver() {
    this.play("over");
  }

  /** A chess round: the turn is yours now (chess.js). */
  yourTurn() {
    this.play("turn");
  }

  play(name) {
    if (this.muted) return;
    this.vibrate(VIBRATIONS[name]);
    this.tone(TONES[name]);
  }

  vibrate(pattern) {
    if (!pattern || typeof navigator.vibrate !== "function") return;
    // Before any tap or key on the page, browsers refuse (and complain): do not ask.
    if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
    try {
      navigator.vibrate(pattern);
    } catch {
      // Not allowed here: nothing to do.
    }
  }

  tone(notes) {
    const audio = this.audio;
    if (!notes || !audio || audio.state !== "running") return;
    try {
      let at = audio.currentTime + 0.01;
      for (const [frequency, length] of notes) {
        const oscillator = audio.createOscillator();
        const gain = audio.createGain();
        oscillator.type = "sine";
        oscillator.frequency.setValueAtTime(frequency, at);
        // A short attack and decay: no clicks.
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(VOLUME, at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
        oscillator.connect(gain).connect(audio.destination);
        oscillator.start(at);
        oscillator.stop(at + length + 0.02);
        at += length;
      }
    } catch {
      // An audio device that went away: stay silent.
    }
  }
}
