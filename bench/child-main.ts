/**
 * Runs a benchmark child's `main`, then exits: 0 when it finished, 1 with the stack on stderr
 * when it threw. Exiting explicitly ends the child even when a loader left worker threads or
 * handles open.
 */
export async function runChildMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
