/**
 * Size limits of a skill package (SPEC §1). One place, so the loader, the validator and the
 * docs cannot drift apart.
 */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Deepest nesting a frontmatter value may have; real frontmatter is two or three levels deep. */
export const MAX_YAML_DEPTH = 32;
/** Aliases a frontmatter may use; a "billion laughs" document needs far more. */
export const MAX_YAML_ALIASES = 50;
