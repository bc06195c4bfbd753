// Incremental splitter for the prompted tool mode: separates streamed model text
// into plain text and ```tool fenced blocks, however the chunks cut the fence or
// the JSON. Plain text is released as soon as it cannot be the start of a fence.

export type Segment = { kind: "text"; text: string } | { kind: "block"; body: string; unterminated?: boolean };

const OPEN = "```tool";
const CLOSE = "```";

export class FencedBlockSplitter {
  private buffer = "";
  private inBlock = false;

  push(chunk: string): Segment[] {
    this.buffer += chunk;
    const out: Segment[] = [];
    for (;;) {
      const progressed = this.inBlock ? this.closeBlock(out) : this.openBlock(out);
      if (!progressed) return out;
    }
  }

  /** Flushes what is left once the stream ended: held-back text, or a block that was never closed. */
  end(): Segment[] {
    const rest = this.buffer;
    this.buffer = "";
    if (this.inBlock) {
      this.inBlock = false;
      return [{ kind: "block", body: rest, unterminated: true }];
    }
    return rest ? [{ kind: "text", text: rest }] : [];
  }

  private openBlock(out: Segment[]): boolean {
    const at = this.buffer.indexOf(OPEN);
    if (at < 0) {
      // Hold back a tail that could still grow into "```tool" with the next chunk.
      const keep = partialSuffix(this.buffer, OPEN);
      emitText(out, this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return false;
    }
    const after = at + OPEN.length;
    if (after >= this.buffer.length) {
      // "```tool" right at the end: "```tools" would not be a fence, so wait for one more character.
      emitText(out, this.buffer.slice(0, at));
      this.buffer = this.buffer.slice(at);
      return false;
    }
    if (!/\s/.test(this.buffer.charAt(after))) {
      // e.g. "```toolbox": ordinary text; continue scanning after its backticks.
      emitText(out, this.buffer.slice(0, at + CLOSE.length));
      this.buffer = this.buffer.slice(at + CLOSE.length);
      return true;
    }
    emitText(out, this.buffer.slice(0, at));
    this.buffer = this.buffer.slice(after);
    this.inBlock = true;
    return true;
  }

  private closeBlock(out: Segment[]): boolean {
    // JSON strings cannot hold raw newlines, so "\n```" always closes; a fence glued to the
    // JSON (`}```) closes when what precedes it parses. Backticks inside strings do neither.
    for (let at = this.buffer.indexOf(CLOSE); at >= 0; at = this.buffer.indexOf(CLOSE, at + 1)) {
      const body = this.buffer.slice(0, at);
      if (at === 0 || /\n[ \t]*$/.test(body) || parses(body)) {
        out.push({ kind: "block", body });
        this.buffer = this.buffer.slice(at + CLOSE.length);
        this.inBlock = false;
        return true;
      }
    }
    return false;
  }
}

function emitText(out: Segment[], text: string): void {
  if (text) out.push({ kind: "text", text });
}

/** Length of the longest proper suffix of `text` that is a prefix of `fence`. */
function partialSuffix(text: string, fence: string): number {
  for (let n = Math.min(fence.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(fence.slice(0, n))) return n;
  }
  return 0;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
