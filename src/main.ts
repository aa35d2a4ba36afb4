// coder-k8s: the operator binary. The controller runtime and app modes arrive with the runtime issue.
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const usage = `Usage: coder-k8s [--version] [--help]

The controller, the aggregated API server and the MCP server are not built yet in this version.`;

const args = process.argv.slice(2);
if (args.includes('--version')) {
  console.log(`coder-k8s ${version}`);
} else if (args.includes('--help') || args.includes('-h')) {
  console.log(usage);
} else {
  console.error(`coder-k8s ${version}: running the operator is not built yet in this version.\n\n${usage}`);
  process.exitCode = 1;
}
