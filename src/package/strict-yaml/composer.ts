/** ruamel's Composer: events into nodes, with every alias undefined (strictyaml refuses anchors). */
import { MarkedError, ReferenceCrash, pythonRepr } from "./error-text.js";
import { Mark } from "./marks.js";
import { Parser } from "./parser.js";

interface ScalarNode {
  kind: "scalar";
  tag: string;
  value: string;
  start: Mark;
  end: Mark;
}
interface SequenceNode {
  kind: "sequence";
  items: YamlNode[];
  start: Mark;
  end: Mark;
}
interface MappingNode {
  kind: "mapping";
  pairs: [YamlNode, YamlNode][];
  start: Mark;
  end: Mark;
}
export type YamlNode = ScalarNode | SequenceNode | MappingNode;

export class Composer {
  constructor(private readonly parser: Parser) {}

  getSingleNode(): YamlNode | null {
    this.parser.getEvent();
    let document: YamlNode | null = null;
    if (!this.parser.checkEvent("StreamEnd")) document = this.composeDocument();
    if (!this.parser.checkEvent("StreamEnd")) {
      const event = this.parser.getEvent();
      throw new MarkedError("expected a single document in the stream", document?.start ?? null, "but found another document", event.start);
    }
    this.parser.getEvent();
    return document;
  }

  private composeDocument(): YamlNode {
    this.parser.getEvent();
    const node = this.composeNode();
    this.parser.getEvent();
    return node;
  }

  private composeNode(): YamlNode {
    if (this.parser.checkEvent("Alias")) {
      const event = this.parser.getEvent();
      // strictyaml refuses every anchor, so every alias is undefined.
      throw new MarkedError(null, null, `found undefined alias ${pythonRepr(event.anchor ?? "")}`, event.start);
    }
    if (this.parser.checkEvent("Scalar")) {
      const event = this.parser.getEvent();
      const value = event.value ?? "";
      const tag = event.implicit?.[0] && value === "<<" ? "merge" : "str";
      return { kind: "scalar", tag, value, start: event.start, end: event.end };
    }
    if (this.parser.checkEvent("SequenceStart")) {
      const start = this.parser.getEvent();
      const items: YamlNode[] = [];
      while (!this.parser.checkEvent("SequenceEnd")) items.push(this.composeNode());
      const end = this.parser.getEvent();
      return { kind: "sequence", items, start: start.start, end: end.end };
    }
    if (this.parser.checkEvent("MappingStart")) {
      const start = this.parser.getEvent();
      const pairs: [YamlNode, YamlNode][] = [];
      while (!this.parser.checkEvent("MappingEnd")) {
        const key = this.composeNode();
        const value = this.composeNode();
        pairs.push([key, value]);
      }
      const end = this.parser.getEvent();
      return { kind: "mapping", pairs, start: start.start, end: end.end };
    }
    throw new ReferenceCrash("the YAML composer met an unexpected event");
  }
}

export const MERGE_NOTE =
  "\nTo suppress this check see:\n   http://yaml.readthedocs.io/en/latest/api.html#duplicate-keys\n\n" +
  "Duplicate keys will become an error in future releases, and are errors\nby default when using the new API.\n";
