#!/usr/bin/env node
import { COMMANDS } from "./all-commands.js";
import { startCli } from "./start.js";

await startCli(COMMANDS);
