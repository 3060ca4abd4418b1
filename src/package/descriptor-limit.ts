/**
 * Running out of file descriptors (`EMFILE` for the process, `ENFILE` for the system) says
 * nothing about the file being read: the same read works a moment later. Reported as a plain
 * read failure ("it may have been changed or removed") it sent people and models looking for a
 * fault in a skill that had none, so every read names it for what it is, in these words.
 * The envelope stays within SPEC §4's codes: `skill_read_error` with reason `io`.
 */
export function isOutOfDescriptors(code: string | undefined): boolean {
  return code === "EMFILE" || code === "ENFILE";
}

/** The explanation every read failure caused by it carries. */
export function outOfDescriptorsText(code: string): string {
  const whose = code === "ENFILE" ? "the system has" : "this process has";
  return `too many open files (${code}): ${whose} no file descriptor left, so nothing could be opened; the file itself is not at fault, try again shortly`;
}
