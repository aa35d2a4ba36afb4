// `coder-k8s validate -f FILE...`: checks manifests offline with the generated validators, as the API
// server would (fieldValidation=Strict). On stdout, one line per problem,
// <file>:<line>:<column>: document <n>, <kind>/<name>: <path>: <message>, then a summary.
// Exit 0 when every object is valid, 1 on any problem, 2 on a usage error.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InputTooLarge, readBounded } from './bounded-read.ts';
import { checkManifests, type ManifestProblem } from './manifests.ts';
import { terminalSafe } from './terminal-safe.ts';

/** A file holds many documents, each at most 3 MiB; past this the file is refused before it is read further. */
const maxFileBytes = 64 * 1024 * 1024;

const usage = `Usage: coder-k8s validate -f FILE [FILE...] [-f FILE...]

Checks coder.com manifests offline, as the API server would check them with kubectl's strict field
validation: unknown fields, types, required fields, enums, patterns, bounds and the CEL rules.

  -f, --filename=FILE   a YAML or JSON file with one or more documents, a directory of them
                        (.yaml, .yml, .json), or - for standard input; more files may follow
                        (as a shell glob gives them: -f config/samples/*.yaml), or repeat -f
Objects of other API groups (Secrets, ...) are skipped. Problems and a summary go to standard output.
Exit status 0 when every object is valid, 1 when there is any problem, 2 for a wrong command line.`;

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
  return terminalSafe(`${file}:${p.line}:${p.column}: document ${p.doc}, ${p.object}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
}

/**
 * The files of every -f, and the arguments after one: a shell expands `-f dir/*.yaml` into one -f and
 * several words. A word before any -f is refused, so a forgotten -f is not read as a file silently.
 */
function fileArguments(args: string[]): { files: string[]; help: boolean } {
  const { values, tokens } = parseArgs({
    args,
    allowPositionals: true,
    tokens: true,
    options: { filename: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } },
  });
  const files: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option' && token.name === 'filename') files.push(token.value!);
    else if (token.kind === 'positional') {
      if (!files.length) throw new Error(`${token.value}: name files after -f (-f ${token.value})`);
      files.push(token.value);
    }
  }
  return { files, help: values.help === true };
}

export async function runValidateCommand(args: string[]): Promise<number> {
  let files: string[];
  try {
    const parsed = fileArguments(args);
    if (parsed.help) {
      console.log(usage);
      return 0;
    }
    files = parsed.files;
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
  console.log(summary);
  return problems ? 1 : 0;
}
