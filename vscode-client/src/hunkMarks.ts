/**
 * What the agent's unreviewed revisions of a plan look like in the plan itself (docs/protocol.md
 * §12.4): the lines a hunk added, highlighted, and the lines it removed, as ghost text.
 *
 * A decoration cannot add lines to the editor, so the removed text rides on lines that are
 * there: a hunk that replaced lines shows each removed line beside the added line that took
 * its place (the rest beside its last added line); a hunk that only removed shows them at the
 * end of the line above, or before the first line when it removed the plan's first lines.
 *
 * No `vscode` import here: unit-tested under plain node.
 */

// The wire's shapes are interfaces (test/unit/wireTypes.test.ts checks each against the
// server's schema); what this module makes of them are type aliases.

/** A `planMode/listHunks` entry. */
export interface HunkInfo {
  path: string;
  hunkId: string;
  /** 0-based: the hunk's first line in the plan as the server holds it. */
  line: number;
  added: number;
  removed: number;
  keepTitle: string;
  undoTitle: string;
  removedLines: string[];
}

export interface ListHunksResult {
  hunks: HunkInfo[];
}

export interface ListHunksParams {
  path?: string;
}

/** Ghost text of removed lines on `line`: after its text, or before it (`before`). */
export type Ghost = {
  line: number;
  text: string;
  before: boolean;
};

export type Marks = {
  /** Added lines, each [first, last] (inclusive, 0-based). */
  added: [number, number][];
  ghosts: Ghost[];
};

// Ghost text longer than this is cut: one line of the editor, not a paragraph.
const MAX_GHOST = 120;
const JOIN = " ⏎ ";

function ghostText(lines: readonly string[]): string {
  const text = lines.map((line) => line.trim()).join(JOIN);
  return text.length > MAX_GHOST ? `${text.slice(0, MAX_GHOST - 1)}…` : text;
}

/** The marks of `hunks` in a plan of `lineCount` lines; a hunk past its end is left out. */
export function hunkMarks(hunks: readonly HunkInfo[], lineCount: number): Marks {
  const marks: Marks = { added: [], ghosts: [] };
  for (const hunk of hunks) {
    if (hunk.line < 0 || hunk.line + hunk.added > lineCount) continue;
    const removed = hunk.removedLines;
    if (hunk.added > 0) {
      marks.added.push([hunk.line, hunk.line + hunk.added - 1]);
      // Removed line i beside added line i; what is left over beside the last added line.
      const paired = Math.min(removed.length, hunk.added);
      for (let i = 0; i < paired; i++) {
        const rest = i === hunk.added - 1 ? removed.slice(i) : [removed[i]];
        marks.ghosts.push({ line: hunk.line + i, text: ghostText(rest), before: false });
      }
    } else if (removed.length > 0) {
      const above = hunk.line - 1;
      if (above >= 0) marks.ghosts.push({ line: above, text: ghostText(removed), before: false });
      else if (lineCount > 0)
        marks.ghosts.push({ line: 0, text: ghostText(removed), before: true });
    }
  }
  return marks;
}
