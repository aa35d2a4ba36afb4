// `coder-k8s validate -f FILE...`: checks manifests offline with the generated validators, as the API
// server would (fieldValidation=Strict). One line per problem: <file>:<doc> <kind>/<name>: <path>: <message>.
// Exit 0 when every object is valid, 1 on any problem, 2 on a usage error.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InputTooLarge, readBounded } from './bounded-read.ts';
import { checkManifests, type ManifestProblem } from './manifests.ts';
import { terminalSafe } from './terminal-safe.ts';

/** A file holds many documents, each at most 3 MiB; past this the file is refused before it is read further. */
const maxFileBytes = 64 * 1024 * 1024;

const usage = `Usage: coder-k8s validate -f FILE [-f FILE...]

Checks coder.com manifests offline, as the API server would check them with kubectl's strict field
validation: unknown fields, types, required fields, enums, patterns, bounds and the CEL rules.

  -f, --filename=FILE   a YAML or JSON file with one or more documents, a directory of them
                        (.yaml, .yml, .json), or - for standard input; repeat for several
Objects of other API groups (Secrets, ...) are skipped. Exit status 1 when there is any problem.`;

interface Source {
  label: string;
  read: () => string;
}

function sources(names: string[]): Source[] {
  return names.flatMap((name): Source[] => {
    if (name === '-') return [{ label: '<stdin>', read: () => readBounded('-', maxFileBytes) }];
    if (statSync(name, { throwIfNoEntry: false })?.isDirectory()) {
      return readdirSync(name)
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .sort()
        .map((f) => ({ label: join(name, f), read: () => readBounded(join(name, f), maxFileBytes) }));
    }
    return [{ label: name, read: () => readBounded(name, maxFileBytes) }];
  });
}

/** One line; names, paths and messages come from the manifest, so control characters are shown escaped. */
function formatProblem(file: string, p: ManifestProblem): string {
  return terminalSafe(`${file}:${p.doc} ${p.object}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
}

export async function runValidateCommand(args: string[]): Promise<number> {
  let files: string[];
  try {
    const { values } = parseArgs({
      args,
      options: { filename: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      console.log(usage);
      return 0;
    }
    files = values.filename ?? [];
    if (!files.length) throw new Error('give at least one -f FILE (or -f - for standard input)');
  } catch (err) {
    console.error(`coder-k8s validate: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  let problems = 0;
  let checked = 0;
  let skipped = 0;
  for (const source of sources(files)) {
    let text: string;
    try {
      text = source.read();
    } catch (err) {
      const why =
        err instanceof InputTooLarge ? err.message : `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      console.log(terminalSafe(`${source.label}: ${why}`));
      problems++;
      continue;
    }
    const report = checkManifests(text);
    for (const p of report.problems) console.log(formatProblem(source.label, p));
    problems += report.problems.length;
    checked += report.checked;
    skipped += report.skipped;
  }
  const summary = `${checked} object(s) checked, ${problems} problem(s)${skipped ? `, ${skipped} object(s) of other API groups skipped` : ''}`;
  console.error(`coder-k8s validate: ${summary}`);
  return problems ? 1 : 0;
}
