import type { CliOutput } from "./output.js";

/** Quick work finishes before a line would be drawn, so short runs print nothing at all. */
const FIRST_DRAW_AFTER_MS = 300;
const REDRAW_EVERY_MS = 250;

/**
 * Shows one self-updating line on stderr while `work` runs, only when stderr is a terminal, so
 * logs and pipes never get carriage-return noise. The line is erased when the work ends.
 */
export async function withProgress<T>(out: CliOutput, label: string, work: Promise<T>): Promise<T> {
  if (!out.interactive) return work;
  const started = Date.now();
  let drawn = false;
  const draw = (): void => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    out.status(`\r\x1b[2K${label}… ${seconds}s`);
    drawn = true;
  };
  let timer: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    draw();
    timer = setInterval(draw, REDRAW_EVERY_MS);
    timer.unref();
  }, FIRST_DRAW_AFTER_MS);
  first.unref();
  try {
    return await work;
  } finally {
    clearTimeout(first);
    if (timer) clearInterval(timer);
    if (drawn) out.status("\r\x1b[2K");
  }
}
