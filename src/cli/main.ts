#!/usr/bin/env node
import { runCli } from "./program.js";

// A reader that stops early (`skillport prompt | head -1`) closes the pipe: the rest of the
// output has nowhere to go, which is the reader's choice, not a failure to report with a stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

// exitCode instead of process.exit(): piped stdout must drain before the process ends.
process.exitCode = await runCli(process.argv.slice(2));
