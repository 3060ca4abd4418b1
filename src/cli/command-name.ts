/**
 * Which command a run names, decided before anything else is loaded: the bundled entry uses it to
 * pick the bundle to load, and the program to pick the command modules to register, so the two
 * can never disagree.
 */

/** The first word that is not an option, when there is one (`list` in `skillport --json list`). */
export function commandNameOf(argv: readonly string[]): string | undefined {
  return argv.find((arg) => !arg.startsWith("-"));
}

/**
 * Commands with a bundle of their own (`dist/cli/<name>/`), holding that command alone: the two a
 * user or an agent host starts fresh again and again (`list`, and `mcp` for every agent session).
 * In the one shared bundle, what they load was split over 40 to 55 files by what the other
 * commands share, and Node reads, compiles and links each ES module on its own; their own
 * bundles load about a dozen. Every other run loads the shared bundle (`dist/cli/all/`).
 */
export const OWN_BUNDLE_COMMANDS: readonly string[] = ["list", "mcp"];
