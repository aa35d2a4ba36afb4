// Stage: the pages of the aggregated kinds in docs/reference/api.md, after the CRD kinds: the same fields
// and columns as a CRD kind's page (docs.ts), then the verbs and subresources the server serves.
import type { AggregatedApi, AggregatedKind } from './aggregated-load.ts';
import { kindSection } from './docs.ts';

function servedSection(api: AggregatedApi, kind: AggregatedKind): string {
  const columns = { ...kind, printerColumns: [api.nameColumn, ...kind.printerColumns, api.ageColumn] };
  const lines = [kindSection(columns), '', '### Verbs', '', kind.verbs.map((v) => `\`${v}\``).join(', ')];
  const subresources = Object.entries(kind.subresources);
  if (subresources.length) {
    lines.push('', '### Subresources', '', '| subresource | verb | answer |', '| --- | --- | --- |');
    for (const [name, { verb, kind: answer }] of subresources) lines.push(`| \`${kind.names.plural}/${name}\` | \`${verb}\` | ${answer} |`);
  }
  return lines.join('\n');
}

export function aggregatedApiReference(api: AggregatedApi): string {
  const toc = api.kinds.map((k) => `- [${k.kind}](#${k.kind.toLowerCase()})`);
  return [
    `# API reference: ${api.group}/${api.version}`,
    '',
    'Served by the aggregated API server (`--app=all` or `--app=aggregated-apiserver`), not stored in Kubernetes: every call goes to Coder. See docs/how-to/aggregated-api.md.',
    '',
    ...toc,
    '',
    ...api.kinds.map((k) => servedSection(api, k)).flatMap((s) => [s, '']),
  ].join('\n');
}
