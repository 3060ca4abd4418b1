/**
 * ruamel's Parser/RoundTripParser, block context only: strictyaml refuses every flow collection at
 * the moment the parser would enter one.
 */
import { MarkedError, ReferenceCrash, pythonRepr } from "./error-text.js";
import { Mark } from "./marks.js";
import { Scanner } from "./scanner.js";

type EventType = "StreamStart" | "StreamEnd" | "DocumentStart" | "DocumentEnd" | "Alias" | "Scalar" | "SequenceStart" | "SequenceEnd" | "MappingStart" | "MappingEnd";

interface ParseEvent {
  type: EventType;
  start: Mark;
  end: Mark;
  anchor?: string | null;
  tag?: string | null;
  implicit?: [boolean, boolean];
  value?: string;
}

const DEFAULT_TAGS: Record<string, string> = { "!": "!", "!!": "tag:yaml.org,2002:" };

export class Parser {
  private current: ParseEvent | null = null;
  private states: (() => ParseEvent)[] = [];
  private marks: Mark[] = [];
  private state: (() => ParseEvent) | null = () => this.parseStreamStart();
  private tagHandles: Record<string, string> = {};

  constructor(private readonly scanner: Scanner) {}

  checkEvent(...choices: EventType[]): boolean {
    if (this.current === null && this.state) this.current = this.state();
    if (this.current !== null) {
      if (choices.length === 0) return true;
      return choices.includes(this.current.type);
    }
    return false;
  }

  peekEvent(): ParseEvent {
    if (this.current === null && this.state) this.current = this.state();
    if (this.current === null) throw new ReferenceCrash("the YAML parser ran out of events");
    return this.current;
  }

  getEvent(): ParseEvent {
    const event = this.peekEvent();
    this.current = null;
    return event;
  }

  private popState(): () => ParseEvent {
    const state = this.states.pop();
    if (!state) throw new ReferenceCrash("the YAML parser lost its state");
    return state;
  }

  private parseStreamStart(): ParseEvent {
    const t = this.scanner.getToken();
    this.state = () => this.parseImplicitDocumentStart();
    return { type: "StreamStart", start: t.start, end: t.end };
  }

  private parseImplicitDocumentStart(): ParseEvent {
    if (!this.scanner.checkToken("<directive>", "<document start>", "<stream end>")) {
      this.tagHandles = { ...DEFAULT_TAGS };
      const t = this.scanner.peekToken();
      this.states.push(() => this.parseDocumentEnd());
      this.state = () => this.parseBlockNode();
      return { type: "DocumentStart", start: t.start, end: t.start };
    }
    return this.parseDocumentStart();
  }

  private parseDocumentStart(): ParseEvent {
    while (this.scanner.checkToken("<document end>")) this.scanner.getToken();
    if (!this.scanner.checkToken("<stream end>")) {
      const start = this.scanner.peekToken().start;
      this.processDirectives();
      if (!this.scanner.checkToken("<document start>")) {
        const t = this.scanner.peekToken();
        throw new MarkedError(null, null, `expected '<document start>', but found ${pythonRepr(t.id)}`, t.start);
      }
      const t = this.scanner.getToken();
      this.states.push(() => this.parseDocumentEnd());
      this.state = () => this.parseDocumentContent();
      return { type: "DocumentStart", start, end: t.end };
    }
    const t = this.scanner.getToken();
    this.state = null;
    return { type: "StreamEnd", start: t.start, end: t.end };
  }

  private parseDocumentEnd(): ParseEvent {
    const t = this.scanner.peekToken();
    let end = t.start;
    if (this.scanner.checkToken("<document end>")) end = this.scanner.getToken().end;
    this.state = this.scanner.v11 ? () => this.parseDocumentStart() : () => this.parseImplicitDocumentStart();
    return { type: "DocumentEnd", start: t.start, end };
  }

  private parseDocumentContent(): ParseEvent {
    if (this.scanner.checkToken("<directive>", "<document start>", "<document end>", "<stream end>")) {
      const event = emptyScalar(this.scanner.peekToken().start);
      this.state = this.popState();
      return event;
    }
    return this.parseBlockNode();
  }

  private processDirectives(): void {
    let version: unknown = null;
    this.tagHandles = {};
    while (this.scanner.checkToken("<directive>")) {
      const t = this.scanner.getToken();
      const directive = t.directive as { name: string; value: unknown };
      if (directive.name === "YAML") {
        if (version !== null) throw new MarkedError(null, null, "found duplicate YAML directive", t.start);
        const [major] = directive.value as [number, number];
        if (major !== 1) throw new MarkedError(null, null, "found incompatible YAML document (version 1.* is required)", t.start);
        version = directive.value;
      } else if (directive.name === "TAG") {
        const [handle, prefix] = directive.value as [string, string];
        if (Object.hasOwn(this.tagHandles, handle)) throw new MarkedError(null, null, `duplicate tag handle ${pythonRepr(handle)}`, t.start);
        this.tagHandles[handle] = prefix;
      }
    }
    for (const key of Object.keys(DEFAULT_TAGS)) {
      if (!Object.hasOwn(this.tagHandles, key)) this.tagHandles[key] = DEFAULT_TAGS[key] as string;
    }
  }

  private parseBlockNode(): ParseEvent {
    return this.parseNode(true, false);
  }

  private parseNode(block: boolean, indentlessSequence: boolean): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("<alias>")) {
      const t = s.getToken();
      this.state = this.popState();
      return { type: "Alias", start: t.start, end: t.end, anchor: t.value ?? "" };
    }
    // An anchor or a tag is refused by checkToken before anything else can happen to it.
    s.checkToken("<anchor>");
    s.checkToken("<tag>");
    const start = s.peekToken().start;
    let end = start;
    if (indentlessSequence && s.checkToken("-")) {
      end = s.peekToken().end;
      this.state = () => this.parseIndentlessSequenceEntry();
      return { type: "SequenceStart", start, end, anchor: null, tag: null };
    }
    if (s.checkToken("<scalar>")) {
      const t = s.getToken();
      end = t.end;
      const implicit: [boolean, boolean] = t.plain ? [true, false] : [false, true];
      this.state = this.popState();
      return { type: "Scalar", start, end, anchor: null, tag: null, implicit, value: t.value ?? "" };
    }
    // Refused here by strictyaml: `[` and `{`.
    s.checkToken("[");
    s.checkToken("{");
    if (block && s.checkToken("<block sequence start>")) {
      end = s.peekToken().start;
      this.state = () => this.parseBlockSequenceFirstEntry();
      return { type: "SequenceStart", start, end, anchor: null, tag: null };
    }
    if (block && s.checkToken("<block mapping start>")) {
      end = s.peekToken().start;
      this.state = () => this.parseBlockMappingFirstKey();
      return { type: "MappingStart", start, end, anchor: null, tag: null };
    }
    const t = s.peekToken();
    throw new MarkedError(`while parsing a ${block ? "block" : "flow"} node`, start, `expected the node content, but found ${pythonRepr(t.id)}`, t.start);
  }

  private parseBlockSequenceFirstEntry(): ParseEvent {
    this.marks.push(this.scanner.getToken().start);
    return this.parseBlockSequenceEntry();
  }

  private parseBlockSequenceEntry(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("-")) {
      const t = s.getToken();
      if (!s.checkToken("-", "<block end>")) {
        this.states.push(() => this.parseBlockSequenceEntry());
        return this.parseBlockNode();
      }
      this.state = () => this.parseBlockSequenceEntry();
      return emptyScalar(t.end);
    }
    if (!s.checkToken("<block end>")) {
      const t = s.peekToken();
      throw new MarkedError("while parsing a block collection", this.marks[this.marks.length - 1] ?? null, `expected <block end>, but found ${pythonRepr(t.id)}`, t.start);
    }
    const t = s.getToken();
    this.state = this.popState();
    this.marks.pop();
    return { type: "SequenceEnd", start: t.start, end: t.end };
  }

  private parseIndentlessSequenceEntry(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("-")) {
      const t = s.getToken();
      if (!s.checkToken("-", "?", ":", "<block end>")) {
        this.states.push(() => this.parseIndentlessSequenceEntry());
        return this.parseBlockNode();
      }
      this.state = () => this.parseIndentlessSequenceEntry();
      return emptyScalar(t.end);
    }
    const t = s.peekToken();
    this.state = this.popState();
    return { type: "SequenceEnd", start: t.start, end: t.start };
  }

  private parseBlockMappingFirstKey(): ParseEvent {
    this.marks.push(this.scanner.getToken().start);
    return this.parseBlockMappingKey();
  }

  private parseBlockMappingKey(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("?")) {
      const t = s.getToken();
      if (!s.checkToken("?", ":", "<block end>")) {
        this.states.push(() => this.parseBlockMappingValue());
        return this.parseNode(true, true);
      }
      this.state = () => this.parseBlockMappingValue();
      return emptyScalar(t.end);
    }
    if (!s.v11 && s.checkToken(":")) {
      this.state = () => this.parseBlockMappingValue();
      return emptyScalar(s.peekToken().start);
    }
    if (!s.checkToken("<block end>")) {
      const t = s.peekToken();
      throw new MarkedError("while parsing a block mapping", this.marks[this.marks.length - 1] ?? null, `expected <block end>, but found ${pythonRepr(t.id)}`, t.start);
    }
    const t = s.getToken();
    this.state = this.popState();
    this.marks.pop();
    return { type: "MappingEnd", start: t.start, end: t.end };
  }

  private parseBlockMappingValue(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken(":")) {
      let t = s.getToken();
      if (!s.checkToken(":")) s.checkToken("?");
      if (!s.checkToken("?", ":", "<block end>")) {
        this.states.push(() => this.parseBlockMappingKey());
        return this.parseNode(true, true);
      }
      this.state = () => this.parseBlockMappingKey();
      // ruamel takes the next token's end as the empty value's mark when this one has no comment.
      t = s.peekToken();
      return emptyScalar(t.end);
    }
    this.state = () => this.parseBlockMappingKey();
    return emptyScalar(s.peekToken().start);
  }
}

function emptyScalar(mark: Mark): ParseEvent {
  return { type: "Scalar", start: mark, end: mark, anchor: null, tag: null, implicit: [true, false], value: "" };
}
