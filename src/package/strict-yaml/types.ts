/** What a read in the reference's dialect gives back. */

export type StrictValue = string | StrictValue[] | StrictMap | MergeMarker;

/** A bare `<<` where a value stands: ruamel makes it an object that is no text, list or map. */
export class MergeMarker {
  readonly text = "<<";
}
export type StrictMap = Map<string, StrictValue>;

export type StrictYamlResult =
  | { ok: true; value: StrictValue | null }
  /** `message` is the text the reference prints after `Invalid YAML in frontmatter: `. */
  | { ok: false; message: string; crash?: undefined }
  /** The reference itself fails with a Python traceback here; `crash` says why, in plain words. */
  | { ok: false; crash: string; message?: undefined };
