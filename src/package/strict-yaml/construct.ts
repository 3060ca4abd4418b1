/**
 * strictyaml's refusals while the value is built: every scalar is text, duplicate keys and sibling
 * mappings at different indentation are refused.
 */
import { MERGE_NOTE, type YamlNode } from "./composer.js";
import { MarkedError, ReferenceCrash } from "./error-text.js";
import { MergeMarker, type StrictMap, type StrictValue } from "./types.js";

/** strictyaml's constructor: every scalar is text; duplicate keys and uneven sibling mappings refused. */
export function construct(node: YamlNode): StrictValue {
  if (node.kind === "scalar") return node.tag === "merge" ? new MergeMarker() : node.value;
  if (node.kind === "sequence") return node.items.map(construct);
  // Merge keys are taken out first (ruamel's flatten_mapping); strictyaml keeps none of their keys.
  let merged = false;
  const pairs: [YamlNode, YamlNode][] = [];
  for (const [key, value] of node.pairs) {
    if (key.kind === "scalar" && key.tag === "merge") {
      if (merged) throw new MarkedError("while constructing a mapping", node.start, 'found duplicate key "<<"', key.start, MERGE_NOTE);
      if (value.kind === "mapping") {
        construct(value);
      } else if (value.kind === "sequence") {
        for (const sub of value.items) {
          if (sub.kind !== "mapping") {
            throw new MarkedError("while constructing a mapping", node.start, `expected a mapping for merging, but found ${sub.kind}`, sub.start);
          }
          construct(sub);
        }
      } else {
        throw new MarkedError("while constructing a mapping", node.start, `expected a mapping or list of mappings for merging, but found ${value.kind}`, value.start);
      }
      merged = true;
      continue;
    }
    pairs.push([key, value]);
  }
  const map: StrictMap = new Map();
  for (const [keyNode, valueNode] of pairs) {
    const key = construct(keyNode);
    if (typeof key !== "string") {
      if (Array.isArray(key)) throw new ReferenceCrash("a mapping key that is a list is not allowed (the reference fails on it)");
      throw new MarkedError("while constructing a mapping", node.start, "found unhashable key", keyNode.start);
    }
    const value = construct(valueNode);
    if (map.has(key)) throw new MarkedError("While parsing", keyNode.start, `Duplicate key '${key}' found`, keyNode.end);
    map.set(key, value);
  }
  let column: number | null = null;
  for (const [, valueNode] of pairs) {
    if (valueNode.kind !== "mapping") continue;
    if (column === null) column = valueNode.start.column;
    if (valueNode.start.column !== column) {
      throw new MarkedError("While parsing", valueNode.start, "Found mapping with indentation inconsistent with previous mapping", valueNode.end);
    }
  }
  return map;
}
