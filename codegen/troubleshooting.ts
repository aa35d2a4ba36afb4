// Stage: the generated section of docs/how-to/troubleshooting.md, every condition reason of every kind with
// what it means and what to do, from the schemas' x-coder-conditions (the same text as docs/reference/api.md),
// so the page cannot drift from what the controllers report.
import type { ResolvedKind } from './load.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** A reason's meaning split into the condition status it goes with and the rest ("False. Waiting. ..."). */
export function splitMeaning(meaning: string): { status: string; text: string } {
  const found = /^(True|False|Unknown)\b\.?\s*/.exec(meaning);
  if (!found) return { status: '', text: meaning };
  return { status: found[1]!, text: meaning.slice(found[0].length) };
}

function kindTable(kind: ResolvedKind): string[] {
  const lines = [`### ${kind.kind}`, ''];
  const stalled = new Set(Object.keys(kind.conditions.Stalled?.reasons ?? {}));
  lines.push(
    `\`kubectl get ${kind.names.singular} <name> -o jsonpath='{.status.conditions}'\`` +
      (stalled.size ? '. A Ready reason marked **you act** also sets Stalled True: the operator waits for you.' : ''),
    '',
    '| condition | reason | status | what it means, what to do |',
    '| --- | --- | --- | --- |',
  );
  // Stalled repeats Ready's reason, so its rows would say nothing new: Ready's rows say which ones stall.
  const types = Object.keys(kind.conditions).filter((type) => type !== 'Stalled');
  for (const type of types) {
    for (const [reason, meaning] of Object.entries(kind.conditions[type]!.reasons)) {
      const { status, text } = splitMeaning(meaning);
      const act = type === 'Ready' && stalled.has(reason) ? ' **You act.**' : '';
      lines.push(`| \`${type}\` | \`${reason}\` | ${status} | ${cell(text)}${act} |`);
    }
  }
  return lines;
}

export function troubleshootingSection(kinds: ResolvedKind[]): string {
  const withConditions = kinds.filter((k) => Object.keys(k.conditions).length > 0);
  return withConditions.flatMap((kind) => [...kindTable(kind), '']).join('\n');
}
