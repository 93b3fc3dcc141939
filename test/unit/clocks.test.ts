// The clocks against wall-clock steps (src/time/), with a wall clock and a monotonic clock given:
// the steady clock moves only with the monotonic clock; the record clock follows the wall but is
// never behind the steady time; judged on the trusted clock, a time recorded never looks older
// than it is, whichever way the wall clock steps.

import t from "tap";
import { RecordClock } from "../../src/time/record-clock.js";
import { SteadyClock } from "../../src/time/steady-clock.js";
import { TrustedClock } from "../../src/time/trusted-clock.js";

const DAY = 86_400_000;
const T0 = 1_800_000_000_000;

function clocks(): { advance(ms: number): void; step(ms: number): void; wall: () => number; mono: () => number } {
  let mono = 0;
  let offset = 0;
  return {
    advance: (ms) => {
      mono += ms;
    },
    step: (ms) => {
      offset += ms;
    },
    wall: () => T0 + mono + offset,
    mono: () => mono,
  };
}

t.test("the steady clock ignores steps both ways", async (t) => {
  const c = clocks();
  const steady = new SteadyClock(c.wall, c.mono);
  c.advance(1000);
  c.step(6 * DAY);
  t.equal(steady.now(), T0 + 1000);
  c.step(-8 * DAY);
  c.advance(500);
  t.equal(steady.now(), T0 + 1500);
});

t.test("the record clock follows the wall forward, never below the steady time", async (t) => {
  const c = clocks();
  const record = new RecordClock(c.wall, c.mono);
  c.step(6 * DAY);
  t.equal(record.now(), T0 + 6 * DAY, "a forward step is followed");
  c.step(-6 * DAY);
  t.equal(record.now(), T0, "back to the steady time once it is put right");
  c.step(-2 * DAY);
  c.advance(1000);
  t.equal(record.now(), T0 + 1000, "a backward step is not followed");
});

t.test("a recorded time judged on the trusted clock never looks older than it is", async (t) => {
  for (const steps of [
    [6 * DAY, -6 * DAY],
    [-2 * DAY, 2 * DAY],
    [-2 * DAY, 0],
    [3 * DAY, -5 * DAY, 2 * DAY],
  ]) {
    const c = clocks();
    const record = new RecordClock(c.wall, c.mono);
    const trusted = new TrustedClock(c.wall, c.mono);
    const recorded: { at: number; mono: number }[] = [];
    for (const s of steps) {
      c.advance(60_000);
      c.step(s);
      recorded.push({ at: record.now(), mono: c.mono() });
      c.advance(60_000);
      for (const r of recorded) t.ok(trusted.now() - r.at <= c.mono() - r.mono, `steps ${steps.join(", ")}: age never overstated`);
    }
  }
});
