/**
 * The review-comment syntax in a plan (README "Reviewing with comments"): a quote whose first
 * line starts with `[!review]`, on its own lines right after the block it annotates. The
 * server parses and anchors comments (server/planmode/core/comments.py); the client only finds
 * them to show as threads and writes new ones where the server will read them.
 *
 * No `vscode` import here: this is the client's pure logic, unit-tested under plain node.
 */

export const MARKER = "[!review]";

const COMMENT = /^ {0,3}>[ \t]?\[!review\](?:[ \t]+|$)(.*)$/i;
const QUOTE_LINE = /^ {0,3}>[ \t]?(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/** A comment written in the document: lines [start, end) and its text. */
export interface WrittenComment {
  start: number;
  end: number;
  text: string;
}

/** The lines of a text as an editor counts them (LF, CRLF and CR end one). */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

interface Fence {
  open: number;
  /** The closing fence's line, or -1 when the fence is left open (it runs to the end). */
  close: number;
}

/** Per line, the fenced code block it belongs to (its fences included), else undefined. */
function fences(lines: readonly string[]): (Fence | undefined)[] {
  const of: (Fence | undefined)[] = lines.map(() => undefined);
  let current: Fence | undefined;
  let fence = "";
  lines.forEach((line, i) => {
    const marker = FENCE.exec(line)?.[1] ?? "";
    if (current !== undefined) {
      of[i] = current;
      if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        current.close = i;
        current = undefined;
      }
    } else if (marker) {
      current = { open: i, close: -1 };
      fence = marker;
      of[i] = current;
    }
  });
  return of;
}

/** The comments written in the document's lines. */
export function findComments(lines: readonly string[]): WrittenComment[] {
  const fenced = fences(lines);
  const found: WrittenComment[] = [];
  let i = 0;
  while (i < lines.length) {
    const marker = fenced[i] !== undefined ? null : COMMENT.exec(lines[i]);
    if (!marker) {
      i += 1;
      continue;
    }
    const parts = [marker[1].trim()];
    let j = i + 1;
    while (j < lines.length && !COMMENT.test(lines[j])) {
      const more = QUOTE_LINE.exec(lines[j]);
      if (!more) break;
      parts.push(more[1].trim());
      j += 1;
    }
    found.push({ start: i, end: j, text: parts.join("\n").trim() });
    i = j;
  }
  return found;
}

/**
 * Where a comment on `line` goes: the line before which it is inserted — straight after the
 * block of plan text holding `line` (a heading, a list item, a paragraph, a fenced code block)
 * and after the comments already written under it — and its lines.
 */
export function commentInsertion(
  lines: readonly string[],
  line: number,
  text: string,
): { at: number; lines: string[] } {
  const body = text
    .trim()
    .split(/\r\n|\r|\n/)
    .map((part) => part.trim());
  if (body.length === 0 || body[0] === "") throw new Error("a comment needs text");
  const written = [`> ${MARKER} ${body[0]}`].concat(
    body.slice(1).map((part) => {
      // A continuation line that starts with the marker would begin a second comment.
      const escaped = COMMENT.test(`> ${part}`) ? `\\${part}` : part;
      return escaped ? `> ${escaped}` : ">";
    }),
  );
  const fenced = fences(lines);
  const inComment = new Set<number>();
  for (const comment of findComments(lines)) {
    for (let i = comment.start; i < comment.end; i += 1) inComment.add(i);
  }
  const blank = (i: number) => inComment.has(i) || lines[i].trim() === "";
  let at = Math.max(0, Math.min(line, lines.length - 1));
  // A blank line or a comment belongs to the block above it.
  while (at > 0 && blank(at)) at -= 1;
  if (lines.length === 0 || blank(at)) return { at: 0, lines: written };
  const fence = fenced[at];
  if (fence !== undefined) {
    // After the closing fence; a fence left open runs to the end, so the comment goes above.
    if (fence.close === -1) return { at: fence.open, lines: written };
    at = fence.close + 1;
  } else if (HEADING.test(lines[at])) {
    at += 1;
  } else {
    at += 1;
    while (
      at < lines.length &&
      !blank(at) &&
      fenced[at] === undefined &&
      !HEADING.test(lines[at]) &&
      !LIST_ITEM.test(lines[at])
    ) {
      at += 1;
    }
  }
  // After comments already written there, and a quote right below (it would read as a
  // continuation of the new comment).
  while (
    at < lines.length &&
    (inComment.has(at) || (fenced[at] === undefined && QUOTE_LINE.test(lines[at])))
  ) {
    at += 1;
  }
  return { at, lines: written };
}
