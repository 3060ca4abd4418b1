#!/usr/bin/env node
/**
 * The bundled command's entry (`dist/cli/skillport.js`, the package's `bin`): loads the bundle
 * that holds what this run needs, a command's own (`dist/cli/<name>/`) or the shared one
 * (`dist/cli/all/`). Run from source, `main.ts` is the entry and there is one program.
 */
import { commandNameOf, OWN_BUNDLE_COMMANDS } from "./command-name.js";

const named = commandNameOf(process.argv.slice(2));
const bundle = named !== undefined && OWN_BUNDLE_COMMANDS.includes(named) ? named : "all";
await import(new URL(`./${bundle}/skillport.js`, import.meta.url).href);
