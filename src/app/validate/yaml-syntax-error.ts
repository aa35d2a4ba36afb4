// The one YAML syntax error a document is reported with, placed where kubectl places it. The parser often
// reports one mistake several times (a line indented too deep gives "Nested mappings are not allowed in
// compact mappings" and "Implicit keys need to be on a single line", both at the value above it); kubectl
// stops at its first error, so a document gets one line here too.
import type { YAMLError } from 'yaml';

export interface SyntaxProblem {
  /** 1-based line and column in the document's text. */
  line: number;
  column: number;
  message: string;
}

/** The parser's first line of a message, without its own "at line L, column C:". */
export function yamlReason(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?\s*$/, '')
    .replace(/:\s*$/, '');
}

/** 1-based column of the first character of a 1-based line that is not a space or a tab. */
function indentedColumn(text: string, line: number): number {
  const content = text.split('\n')[line - 1] ?? '';
  return content.length - content.trimStart().length + 1;
}

/**
 * A line indented deeper than the keys of its mapping continues the plain value above it, and its colon
 * then makes that multi-line value a key. The parser places this at the value; kubectl (go-yaml) at the
 * line of the colon, which is the line to fix, with "mapping values are not allowed in this context".
 */
function tooDeepKey(errors: readonly YAMLError[], at: number, text: string): SyntaxProblem | undefined {
  const multiline = errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && e.pos[0] === at);
  const colon = multiline?.linePos?.[1];
  if (!colon) return undefined;
  return {
    line: colon.line,
    column: indentedColumn(text, colon.line),
    message:
      'mapping values are not allowed in this context: this line is indented more than the keys of its mapping, ' +
      'so it reads as part of the value above',
  };
}

/** The first of a document's YAML errors, relative to the document's text (`text`). */
export function syntaxProblem(errors: readonly YAMLError[], text: string): SyntaxProblem {
  const first = [...errors].sort((a, b) => a.pos[0] - b.pos[0])[0]!;
  const deep = tooDeepKey(errors, first.pos[0], text);
  if (deep) return deep;
  const start = first.linePos?.[0];
  const line = start?.line ?? 1;
  // The parser places a key indented less than its siblings at the start of its line; the key is what to fix.
  const column = first.code === 'BAD_INDENT' && line > 0 ? indentedColumn(text, line) : (start?.col ?? 1);
  return { line, column, message: yamlReason(first.message) };
}
