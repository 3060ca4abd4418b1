/**
 * Size limits of a skill package (SPEC §1). One place, so the loader, the validator and the
 * docs cannot drift apart.
 */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
export const MAX_NAME_LENGTH = 64;
/**
 * Past the standard's 64 a name only warns, but past this it cannot be used: the tool refuses a
 * longer `name` argument before any lookup, so such a skill could be listed and never loaded.
 */
export const MAX_USABLE_NAME_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Deepest nesting a frontmatter value may have; real frontmatter is two or three levels deep. */
export const MAX_YAML_DEPTH = 32;
/**
 * The yaml parser's alias budget (`maxAliasCount`), which counts the anchored value as its first
 * use: a plain value may be referred to 49 times. A "billion laughs" document needs far more.
 */
export const MAX_YAML_ALIASES = 50;
/**
 * A whole package, as the MCP Skills Extension (SEP-2640) bounds it: hosts must accept at least
 * this many files and bytes, so a package past them cannot be served to every client, and an
 * installer refuses it.
 */
export const MAX_PACKAGE_FILES = 512;
export const MAX_PACKAGE_BYTES = 16 * 1024 * 1024;
/**
 * Largest file an agent may write into a skill (SPEC §11). The §1 SKILL.md limit, for every
 * file: what an agent writes is text it keeps as a procedure, and a limit per kind of file would
 * be one more rule to learn for no real skill's sake.
 */
export const MAX_AUTHORED_FILE_BYTES = MAX_SKILL_FILE_BYTES;
