/**
 * What a file system error means to a caller that reads or writes inside a skill: one mapping, so
 * a path refused by a read is refused for the same reason by a write.
 */

/** The error's `code` (`ENOENT`, `ELOOP`, ...), or undefined for an error that has none. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

export type FileErrorReason = "not_found" | "illegal_path" | "not_a_file" | "io";

export function fileErrorReason(error: unknown): FileErrorReason {
  switch (errorCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
    // A name longer than the file system allows cannot name a file there.
    case "ENAMETOOLONG":
      return "not_found";
    // Opened with O_NOFOLLOW, a link where a file should be fails with ELOOP: a link is refused
    // as a path, not reported as a broken file.
    case "ELOOP":
      return "illegal_path";
    case "EISDIR":
      return "not_a_file";
    default:
      return "io";
  }
}
