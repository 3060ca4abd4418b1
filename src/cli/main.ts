#!/usr/bin/env node
import { runCli } from "./program.js";

// exitCode instead of process.exit(): piped stdout must drain before the process ends.
process.exitCode = await runCli(process.argv.slice(2));
