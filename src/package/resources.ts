/**
 * Lists a skill's resource files (SPEC §1): `scripts/`, `references/`, `assets/`, recursive but
 * bounded (depth 5, 500 entries), skipping dot-entries and `node_modules`. Scripts are absolute
 * (the model runs them directly); references and assets are skill-relative (the model reads
 * them through the tool). Symlinked directories are not descended: a listing must not loop.
 * A symlink whose target lies outside the skill's real directory is left out: the listing
 * must not offer a file that a confined read would refuse. So is a name holding a backslash,
 * which a read takes for a separator (models write Windows paths): it could never be read. So
 * is a name with a line break or a hidden character: the listing reaches the model one file a
 * line, and such a name could forge entries there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "./confined-read.js";
import { hasUnshowableCharacter } from "./display-text.js";

export const RESOURCE_DIRS = ["scripts", "references", "assets"] as const;
export const MAX_RESOURCE_DEPTH = 5;
export const MAX_RESOURCE_ENTRIES = 500;

export interface ResourceListing {
  scripts: string[];
  references: string[];
  assets: string[];
  /** True when the bound cut the listing short. */
  truncated: boolean;
}

export function listResources(dir: string): ResourceListing {
  const listing: ResourceListing = { scripts: [], references: [], assets: [], truncated: false };
  let budget = MAX_RESOURCE_ENTRIES;
  let realDir: string;
  try {
    realDir = fs.realpathSync(dir);
  } catch {
    return listing;
  }
  const confined = (rel: string): boolean => {
    try {
      return isInside(realDir, fs.realpathSync(path.join(dir, rel)));
    } catch {
      return false;
    }
  };
  for (const top of RESOURCE_DIRS) {
    // `references` itself may be a symlink; only a target inside the skill counts.
    if (!confined(top)) continue;
    const found: string[] = [];
    const walk = (rel: string, depth: number): void => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
      } catch {
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name.includes("\\") || hasUnshowableCharacter(entry.name)) continue;
        const childRel = `${rel}/${entry.name}`;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          try {
            isFile = confined(childRel) && fs.statSync(path.join(dir, childRel)).isFile();
          } catch {
            isFile = false;
          }
          isDir = false;
        }
        if (isFile) {
          if (budget === 0) {
            listing.truncated = true;
            return;
          }
          budget--;
          found.push(childRel);
        } else if (isDir) {
          if (depth + 1 >= MAX_RESOURCE_DEPTH) {
            listing.truncated = true;
            continue;
          }
          walk(childRel, depth + 1);
        }
        if (listing.truncated && budget === 0) return;
      }
    };
    walk(top, 0);
    listing[top] = top === "scripts" ? found.map((rel) => path.join(dir, rel)) : found;
  }
  return listing;
}

export function hasResources(listing: ResourceListing): boolean {
  return listing.scripts.length + listing.references.length + listing.assets.length > 0;
}
