import type { StateBlock } from "markdown-it";

/**
 * Block syntax as Zulip's Markdown has it (zerver/lib/markdown/fenced_code.py and the
 * block processors in zerver/lib/markdown/__init__.py), on markdown-it's block parser.
 */

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/**
 * Zulip's FENCE_RE: ``` or ~~~ (3 or more), then optionally a language (also `{.lang}`)
 * and, for spoilers, a header. Python's `[+-./]` range also admits ",".
 */
const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;

type FenceKind = "code" | "quote" | "spoiler" | "math";

const FENCE_KINDS: Record<string, FenceKind> = {
  quote: "quote",
  quoted: "quote",
  spoiler: "spoiler",
  math: "math",
};

function fenceKind(lang: string | undefined): FenceKind {
  return (lang !== undefined && FENCE_KINDS[lang]) || "code";
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
}

/** The fence line at `line` (at the container's left edge), if it is one. */
function fenceAt(state: StateBlock, line: number) {
  if (state.sCount[line] !== state.blkIndent) return null;
  const m = FENCE_RE.exec(lineText(state, line));
  if (!m) return null;
  const lang = m[2]?.toLowerCase();
  return { fence: m[1]!, lang, header: m[3], kind: fenceKind(lang) };
}

/**
 * Fenced blocks. As in Zulip, a block ends at a line that is exactly its fence (trailing
 * spaces aside), or at the end of the message; quote and spoiler blocks may contain other
 * fenced blocks, code and math blocks may not.
 */
export const fenceRule: BlockRule = (state, startLine, endLine, silent) => {
  const open = fenceAt(state, startLine);
  if (!open) return false;
  if (silent) return true;

  const stack: Array<{ fence: string; container: boolean }> = [
    { fence: open.fence, container: open.kind === "quote" || open.kind === "spoiler" },
  ];
  let next = startLine + 1;
  let closed = false;
  for (; next < endLine; next++) {
    if (!state.isEmpty(next) && state.sCount[next]! < state.blkIndent) break;
    const top = stack[stack.length - 1]!;
    const atEdge = state.sCount[next] === state.blkIndent;
    if (atEdge && lineText(state, next).trimEnd() === top.fence) {
      stack.pop();
      if (stack.length === 0) {
        closed = true;
        break;
      }
      continue;
    }
    if (top.container) {
      const inner = fenceAt(state, next);
      if (inner)
        stack.push({ fence: inner.fence, container: inner.kind === "quote" || inner.kind === "spoiler" });
    }
  }
  const contentEnd = next;
  state.line = next + (closed ? 1 : 0);

  // As in Zulip, a block without a single line renders nothing.
  if (contentEnd === startLine + 1) return true;

  if (open.kind === "code" || open.kind === "math") {
    const lines = state.getLines(startLine + 1, contentEnd, state.blkIndent, false).split("\n");
    const token = state.push("zulip_code", "code", 0);
    token.content = lines.map((l) => l.trimEnd()).join("\n");
    token.info = open.lang ?? "";
    token.markup = open.fence;
    token.map = [startLine, state.line];
    return true;
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  // Keeps lazy continuation lines from running past the closing fence.
  state.lineMax = contentEnd;
  state.parentType = "blockquote";
  if (open.kind === "quote") {
    const token = state.push("blockquote_open", "blockquote", 1);
    token.markup = open.fence;
    token.map = [startLine, state.line];
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push("blockquote_close", "blockquote", -1).markup = open.fence;
  } else {
    state.push("zulip_spoiler_open", "div", 1).map = [startLine, state.line];
    const header = open.header?.trim();
    if (header) {
      state.push("paragraph_open", "p", 1);
      const inline = state.push("inline", "", 0);
      inline.content = header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push("paragraph_close", "p", -1);
    }
    state.push("zulip_spoiler_content", "div", 0);
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push("zulip_spoiler_close", "div", -1);
  }
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = contentEnd + (closed ? 1 : 0);
  return true;
};

/** Zulip does not quote a block made only of empty `>` lines (`>` alone is text). */
export function zulipBlockquoteRule(blockquote: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    let line = startLine;
    for (; line < endLine && !state.isEmpty(line); line++) {
      if (!/^>\s*$/.test(lineText(state, line))) break;
    }
    if (line === endLine || state.isEmpty(line)) return false;
    return blockquote(state, startLine, endLine, silent);
  };
}

/** markdown-it's paragraph rule, keeping trailing spaces as Zulip does (`block.lstrip()`). */
export const paragraphRule: BlockRule = (state, startLine, endLine) => {
  const terminatorRules = state.md.block.ruler.getRules("paragraph");
  const oldParentType = state.parentType;
  let nextLine = startLine + 1;
  state.parentType = "paragraph";
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    // Indented lines (code blocks) and lines outside the container continue the paragraph.
    if (state.sCount[nextLine]! - state.blkIndent > 3) continue;
    if (state.sCount[nextLine]! < 0) continue;
    if (terminatorRules.some((rule) => rule(state, nextLine, endLine, true))) break;
  }
  const content = state.getLines(startLine, nextLine, state.blkIndent, false).replace(/^[ \t\r\n\f]+/, "");
  state.line = nextLine;
  state.push("paragraph_open", "p", 1).map = [startLine, state.line];
  const inline = state.push("inline", "", 0);
  inline.content = content;
  inline.map = [startLine, state.line];
  inline.children = [];
  state.push("paragraph_close", "p", -1);
  state.parentType = oldParentType;
  return true;
};

// Lists. Adapted from markdown-it's list rule (MIT, https://github.com/markdown-it/markdown-it)
// for Zulip's (Python-Markdown sane_lists with 2-space indentation):
// - an item's content is indented 2 spaces from its marker, so `1. a\n  2. b` nests;
// - `*`, `-` and `+` items make one list; ordered items use `.` only (`1)` is text);
// - a numbered item interrupts a paragraph whatever its number ("hanging" lists).

function bulletMarkerEnd(state: StateBlock, line: number): number {
  const max = state.eMarks[line]!;
  let pos = state.bMarks[line]! + state.tShift[line]!;
  const marker = state.src.charCodeAt(pos++);
  if (marker !== 0x2a && marker !== 0x2d && marker !== 0x2b) return -1;
  if (pos < max && !state.md.utils.isSpace(state.src.charCodeAt(pos))) return -1;
  return pos;
}

function orderedMarkerEnd(state: StateBlock, line: number): number {
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  let pos = start;
  if (pos + 1 >= max) return -1;
  let ch = state.src.charCodeAt(pos++);
  if (ch < 0x30 || ch > 0x39) return -1;
  for (;;) {
    if (pos >= max) return -1;
    ch = state.src.charCodeAt(pos++);
    if (ch >= 0x30 && ch <= 0x39) {
      if (pos - start >= 10) return -1;
      continue;
    }
    if (ch === 0x2e /* . */) break;
    return -1;
  }
  if (pos < max && !state.md.utils.isSpace(state.src.charCodeAt(pos))) return -1;
  return pos;
}

function markTightParagraphs(state: StateBlock, listTokenIndex: number): void {
  const level = state.level + 2;
  for (let i = listTokenIndex + 2, l = state.tokens.length - 2; i < l; i++) {
    if (state.tokens[i]!.level === level && state.tokens[i]!.type === "paragraph_open") {
      state.tokens[i + 2]!.hidden = true;
      state.tokens[i]!.hidden = true;
      i += 2;
    }
  }
}

export const listRule: BlockRule = (state, startLine, endLine, silent) => {
  let nextLine = startLine;
  let tight = true;
  if (state.sCount[nextLine]! - state.blkIndent >= 4) return false;
  if (
    state.listIndent >= 0 &&
    state.sCount[nextLine]! - state.listIndent >= 4 &&
    state.sCount[nextLine]! < state.blkIndent
  ) {
    return false;
  }
  const isTerminatingParagraph =
    silent && state.parentType === "paragraph" && state.sCount[nextLine]! >= state.blkIndent;

  let isOrdered: boolean;
  let markerValue = 1;
  let start = 0;
  let posAfterMarker = orderedMarkerEnd(state, nextLine);
  if (posAfterMarker >= 0) {
    isOrdered = true;
    start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    markerValue = Number(state.src.slice(start, posAfterMarker - 1));
    // Zulip's hanging-list preprocessor only recognizes one-digit numbers.
    if (isTerminatingParagraph && posAfterMarker - start > 2) return false;
  } else if ((posAfterMarker = bulletMarkerEnd(state, nextLine)) >= 0) {
    isOrdered = false;
  } else {
    return false;
  }
  // An empty item does not interrupt a paragraph.
  if (isTerminatingParagraph && state.skipSpaces(posAfterMarker) >= state.eMarks[nextLine]!) return false;
  if (silent) return true;

  const listTokenIndex = state.tokens.length;
  let token;
  if (isOrdered) {
    token = state.push("ordered_list_open", "ol", 1);
    if (markerValue !== 1) token.attrs = [["start", String(markerValue)]];
  } else {
    token = state.push("bullet_list_open", "ul", 1);
  }
  const listLines: [number, number] = [nextLine, 0];
  token.map = listLines;
  token.markup = state.src.charAt(posAfterMarker - 1);

  let prevEmptyEnd = false;
  const terminatorRules = state.md.block.ruler.getRules("list");
  const oldParentType = state.parentType;
  state.parentType = "list";

  while (nextLine < endLine) {
    let pos = posAfterMarker;
    const max = state.eMarks[nextLine]!;
    const markerColumn = state.sCount[nextLine]!;
    const initial = markerColumn + posAfterMarker - (state.bMarks[nextLine]! + state.tShift[nextLine]!);
    let offset = initial;
    while (pos < max) {
      const ch = state.src.charCodeAt(pos);
      if (ch === 0x09) offset += 4 - ((offset + state.bsCount[nextLine]!) % 4);
      else if (ch === 0x20) offset++;
      else break;
      pos++;
    }
    const contentStart = pos;
    let indentAfterMarker = contentStart >= max ? 1 : offset - initial;
    if (indentAfterMarker > 4) indentAfterMarker = 1;
    // Zulip: nested content needs 2 spaces of indentation, whatever the marker's width.
    const indent = Math.min(initial + indentAfterMarker, markerColumn + 2);

    token = state.push("list_item_open", "li", 1);
    token.markup = state.src.charAt(posAfterMarker - 1);
    const itemLines: [number, number] = [nextLine, 0];
    token.map = itemLines;
    if (isOrdered) token.info = state.src.slice(start, posAfterMarker - 1);

    const oldTight = state.tight;
    const oldTShift = state.tShift[nextLine]!;
    const oldSCount = state.sCount[nextLine]!;
    const oldListIndent = state.listIndent;
    state.listIndent = state.blkIndent;
    state.blkIndent = indent;
    state.tight = true;
    state.tShift[nextLine] = contentStart - state.bMarks[nextLine]!;
    state.sCount[nextLine] = offset;
    if (contentStart >= max && state.isEmpty(nextLine + 1)) {
      state.line = Math.min(state.line + 2, endLine);
    } else {
      state.md.block.tokenize(state, nextLine, endLine);
    }
    if (!state.tight || prevEmptyEnd) tight = false;
    prevEmptyEnd = state.line - nextLine > 1 && state.isEmpty(state.line - 1);
    state.blkIndent = state.listIndent;
    state.listIndent = oldListIndent;
    state.tShift[nextLine] = oldTShift;
    state.sCount[nextLine] = oldSCount;
    state.tight = oldTight;

    token = state.push("list_item_close", "li", -1);
    token.markup = state.src.charAt(posAfterMarker - 1);
    nextLine = state.line;
    itemLines[1] = nextLine;
    if (nextLine >= endLine) break;
    if (state.sCount[nextLine]! < state.blkIndent) break;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) break;
    if (terminatorRules.some((rule) => rule(state, nextLine, endLine, true))) break;
    if (isOrdered) {
      posAfterMarker = orderedMarkerEnd(state, nextLine);
      if (posAfterMarker < 0) break;
      start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    } else {
      posAfterMarker = bulletMarkerEnd(state, nextLine);
      if (posAfterMarker < 0) break;
    }
  }

  token = state.push(isOrdered ? "ordered_list_close" : "bullet_list_close", isOrdered ? "ol" : "ul", -1);
  token.markup = state.src.charAt(posAfterMarker - 1);
  listLines[1] = nextLine;
  state.line = nextLine;
  state.parentType = oldParentType;
  if (tight) markTightParagraphs(state, listTokenIndex);
  return true;
};
