import assert from "node:assert/strict";
import test from "node:test";
import { performance } from "node:perf_hooks";
import { TimeSlicer } from "../../src/registry/time-slice.js";

test("tasks sharing a slicer get one slice per turn of the event loop, first come first served", async () => {
  // A slice of zero is used up at every clock reading (every fourth item), so each task yields often.
  const slicer = new TimeSlicer(0);
  // Counts turns of the loop: an immediate that queues itself runs once per turn.
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const resumedIn = new Map<string, number[]>();
  const order: string[] = [];
  const task = async (name: string) => {
    const turns: number[] = [];
    resumedIn.set(name, turns);
    await slicer.yield();
    turns.push(turn);
    order.push(name);
    for (let item = 0; item < 40; item++) {
      if (slicer.due()) {
        await slicer.yield();
        turns.push(turn);
        order.push(name);
      }
    }
  };
  await Promise.all(["a", "b", "c"].map(task));
  ticking = false;

  const all = [...resumedIn.values()].flat();
  assert.equal(new Set(all).size, all.length, `two slices ran in one turn: ${JSON.stringify(Object.fromEntries(resumedIn))}`);
  for (const [name, turns] of resumedIn) assert.equal(turns.length, 11, `${name}: a first turn, then one per four items`);
  assert.deepEqual(order.slice(0, 6), ["a", "b", "c", "a", "b", "c"], "waiting tasks take turns in the order they yielded");
});

test("a lone task resumes in a later turn", async () => {
  const slicer = new TimeSlicer();
  let immediateRan = false;
  setImmediate(() => (immediateRan = true));
  await slicer.yield();
  assert.ok(immediateRan, "the yield let the loop run what was queued before it");
});

test("a resumed task starts a fresh slice: its clock and its item count both start again", async () => {
  // The clock is read every fourth item, so with a slice of zero the fourth call is due.
  const counting = new TimeSlicer(0);
  while (!counting.due());
  counting.due();
  counting.due();
  await counting.yield();
  assert.deepEqual([counting.due(), counting.due(), counting.due(), counting.due()], [false, false, false, true], "the item count restarted");

  // A slice used up before the yield is whole again after it.
  const timed = new TimeSlicer(50);
  while (!timed.due());
  await timed.yield();
  for (let i = 0; i < 8; i++) assert.equal(timed.due(), false, "the slice's clock restarted");
});

/** Keeps this thread busy for at least `ms`, as a long callback or a collection between two slices would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test("time the loop spent elsewhere since the last slice ended comes out of the next slice", async () => {
  // A 50 ms slice with no minimum: other work of 60 ms between two slices uses the next one up.
  const slicer = new TimeSlicer(50, 0);
  const resumed = slicer.yield();
  busyFor(60);
  await resumed;
  assert.deepEqual([slicer.due(), slicer.due(), slicer.due(), slicer.due()], [false, false, false, true], "due at the first clock reading");

  // Without other work in between, the same slicer's next slice is whole.
  await slicer.yield();
  for (let i = 0; i < 8; i++) assert.equal(slicer.due(), false, "a slice after an idle turn keeps its budget");
});

test("a slice after a long stretch of other work still keeps its minimum, so a scan makes headway", async () => {
  const slicer = new TimeSlicer(200, 100);
  const resumed = slicer.yield();
  busyFor(300);
  await resumed;
  for (let i = 0; i < 8; i++) assert.equal(slicer.due(), false, "the minimum slice is left");
});
