/**
 * Counts turns of the event loop: an immediate that queues itself runs once per turn, so the
 * count shows whether work let the loop run (many turns) or held it (a handful).
 */
export function countLoopTurns(): { readonly turns: number; stop(): number } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop() {
      running = false;
      return turns;
    },
  };
}
