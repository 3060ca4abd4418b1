/**
 * Diagnostics are values, never log lines: every problem a loader meets is kept so that
 * `doctor`, `validate` and the library can show it later. One shape for every layer.
 */
export type Severity = "error" | "warning";

export interface Diagnostic {
  /** The file or directory the problem is about (absolute where known). */
  path: string;
  severity: Severity;
  /** Stable machine code, e.g. `yaml_invalid`, `name_mismatch`, `shadowed`. */
  code: string;
  /** A sentence a person can act on. */
  message: string;
}

export function diagnostic(path: string, severity: Severity, code: string, message: string): Diagnostic {
  return { path, severity, code, message };
}
