// The server's clock, as this browser estimates it: timers count from server times.
//
// Each ping/pong gives offset = server_time - (sent + received) / 2, which is wrong by at
// most half the round trip; the sample with the shortest round trip of the last few wins.

const KEEP_SAMPLES = 8;

export class ServerClock {
  constructor() {
    this.offset = 0;
    this.samples = [];
    this.rough = false;
  }

  /** Before any pong: offset from a message's server_time (off by the one-way delay). */
  roughSample(serverTime) {
    if (this.samples.length || typeof serverTime !== "number") return;
    this.offset = serverTime - Date.now();
    this.rough = true;
  }

  /** A pong: `clientTime` is when its ping left, `receivedAt` when the pong arrived. */
  sample(clientTime, serverTime, receivedAt = Date.now()) {
    if (typeof clientTime !== "number" || typeof serverTime !== "number") return;
    const rtt = receivedAt - clientTime;
    if (rtt < 0) return;
    this.samples.push({ rtt, offset: serverTime - (clientTime + receivedAt) / 2 });
    if (this.samples.length > KEEP_SAMPLES) this.samples.shift();
    const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offset = best.offset;
    this.rough = false;
  }

  /** The server's time now, in ms since the epoch. */
  now() {
    return Date.now() + this.offset;
  }
}
