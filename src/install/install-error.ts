/**
 * A request the installer cannot carry out at all: `usage` when what was asked is malformed or
 * names nothing (a SOURCE shaped like an option, a folder that does not exist, no lockfile for
 * `--frozen`), `failed` when the source could not be fetched. A skill that cannot be installed is
 * not an error: it is a `refused` outcome, and the others still go in.
 */
export class InstallError extends Error {
  constructor(
    message: string,
    readonly kind: "usage" | "failed",
  ) {
    super(message);
    this.name = "InstallError";
  }
}
