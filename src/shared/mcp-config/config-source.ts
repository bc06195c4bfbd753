// Position-aware reading of mcp.json: JSONC syntax errors with line/column, duplicate
// keys at any depth (JSON.parse silently keeps the last one), and the line/column of
// a JSON path, so every configuration issue can point into the file.
// Runtime-neutral: runs in workerd and in Node.
import { type JSONPath, type Node, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { ConfigError, type ConfigIssue } from "../errors";

export type { JSONPath };

export interface Position {
  line: number;
  column: number;
}

/** Where an issue points: the value at the path, or the key that names it. */
export type Anchor = "value" | "key";

export class JsonSource {
  private readonly lineStarts: number[];

  private constructor(
    readonly fileName: string,
    readonly text: string,
    readonly root: Node,
  ) {
    this.lineStarts = lineStartOffsets(text);
  }

  /** Parses JSONC (comments and trailing commas allowed, as VS Code's mcp.json is). Throws ConfigError on a syntax error. */
  static parse(text: string, fileName: string): JsonSource {
    // A BOM is invisible in editors; a space keeps every other offset unchanged.
    const body = text.startsWith("\uFEFF") ? ` ${text.slice(1)}` : text;
    const errors: ParseError[] = [];
    const root = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false });
    const first = errors[0];
    if (first || !root) {
      const source = new JsonSource(fileName, body, root ?? { type: "null", offset: 0, length: 0 });
      const empty = body.trim() === "";
      const offset = empty ? 0 : (first?.offset ?? 0);
      // After a complete value the scanner reports stray text as an "invalid symbol"; say what it is.
      const printed = first ? printParseErrorCode(first.error) : "ValueExpected";
      const trailing = printed === "InvalidSymbol" && root !== undefined && offset >= root.offset + root.length;
      const code = trailing ? "EndOfFileExpected" : printed;
      const message = empty ? "the file is empty" : `syntax error: ${SYNTAX_MESSAGES[code] ?? code}`;
      // Only the first error: the parser recovers and later errors are mostly echoes of it.
      throw new ConfigError([{ file: fileName, ...source.positionAt(offset), path: "", message }]);
    }
    return new JsonSource(fileName, body, root);
  }

  /** 1-based line and column (in UTF-16 code units) of an offset. */
  positionAt(offset: number): Position {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.lineStarts[low] ?? 0) + 1 };
  }

  /**
   * The node at a path, or the deepest existing ancestor when the path does not exist
   * (a missing field is reported at the object that should hold it). Keys resolve to
   * their first occurrence, like `nodeValue`.
   */
  nodeAt(path: JSONPath): Node {
    let node = this.root;
    for (const segment of path) {
      const next = typeof segment === "number" ? arrayItem(node, segment) : propertyNode(node, segment)?.children?.[1];
      if (!next) break;
      node = next;
    }
    return node;
  }

  locate(path: JSONPath, anchor: Anchor = "value"): Position {
    const node = this.nodeAt(path);
    if (anchor === "key" && node.parent?.type === "property") {
      return this.positionAt(node.parent.offset);
    }
    return this.positionAt(node.offset);
  }

  issue(path: JSONPath, message: string, anchor: Anchor = "value"): ConfigIssue {
    return { file: this.fileName, ...this.locate(path, anchor), path: formatJsonPath(path), message };
  }

  /**
   * Every repeated key, at any depth, reported at its second (third, ...) occurrence.
   * `noun` names what the keys of an object are (`server name`); default `key`.
   */
  duplicateKeyIssues(noun: (objectPath: JSONPath) => string = () => "key"): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    const visit = (node: Node, path: JSONPath): void => {
      if (node.type === "array") {
        node.children?.forEach((child, index) => {
          visit(child, [...path, index]);
        });
        return;
      }
      if (node.type !== "object") return;
      const seen = new Map<string, Node>();
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || typeof keyNode.value !== "string") continue;
        const key = keyNode.value;
        const first = seen.get(key);
        if (first) {
          const firstLine = this.positionAt(first.offset).line;
          issues.push({
            file: this.fileName,
            ...this.positionAt(property.offset),
            path: formatJsonPath([...path, key]),
            message: `duplicate ${noun(path)} "${key}" (first defined on line ${firstLine})`,
          });
          continue;
        }
        seen.set(key, property);
        if (valueNode) visit(valueNode, [...path, key]);
      }
    };
    visit(this.root, []);
    return issues;
  }
}

/** The JSON value of a node; for a repeated key the first occurrence wins, matching `nodeAt`. */
export function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "array":
      return (node.children ?? []).map(nodeValue);
    case "object": {
      const result: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || !valueNode || typeof keyNode.value !== "string") continue;
        if (Object.hasOwn(result, keyNode.value)) continue;
        // defineProperty: a key named "__proto__" must stay data, not replace the prototype.
        Object.defineProperty(result, keyNode.value, {
          value: nodeValue(valueNode),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    default:
      return node.value as unknown;
  }
}

/** The properties of an object node in file order, first occurrence of each key only. */
export function objectEntries(node: Node): { key: string; keyNode: Node; valueNode: Node }[] {
  if (node.type !== "object") return [];
  const entries: { key: string; keyNode: Node; valueNode: Node }[] = [];
  const seen = new Set<string>();
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode || typeof keyNode.value !== "string" || seen.has(keyNode.value)) continue;
    seen.add(keyNode.value);
    entries.push({ key: keyNode.value, keyNode, valueNode });
  }
  return entries;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `servers.fs.args[1]`; keys that are not plain identifiers in brackets: `servers["my server"]`. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function propertyNode(node: Node, key: string): Node | undefined {
  if (node.type !== "object") return undefined;
  return node.children?.find((property) => property.children?.[0]?.value === key);
}

function arrayItem(node: Node, index: number): Node | undefined {
  return node.type === "array" ? node.children?.[index] : undefined;
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    // \n, \r\n and a lone \r all end a line, as editors count them.
    if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

const SYNTAX_MESSAGES: Record<string, string> = {
  InvalidSymbol: "invalid symbol",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "unexpected content after the end of the JSON document",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character in string",
  InvalidCharacter: "invalid character in string (control characters must be escaped)",
};
