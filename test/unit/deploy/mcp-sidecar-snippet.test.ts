// docs/how-to/mcp.md section 3 adds a container and a volume to deploy/deployment.yaml and sets the pod's
// fsGroup: the result must let the image's user read the token file, and pass the restricted Pod Security level
// as the operator's own container does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Container, V1Deployment, V1Volume } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { parseOperatorArgs, type OperatorOptions } from '../../../src/app/options.ts';

const doc = readFileSync('docs/how-to/mcp.md', 'utf8');
const section = doc.slice(doc.indexOf('## 3. Run it'), doc.indexOf('\n## ', doc.indexOf('## 3. Run it') + 1));
const snippet = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
// The snippet is a container list item followed by the pod's volumes, indented as in the Deployment. Read as
// kubectl reads it (YAML 1.1), where 0440 is octal; YAML 1.2 would read it as the decimal 440.
const added = parse(`      containers:\n${snippet}`, { version: '1.1' }) as { containers: V1Container[]; volumes: V1Volume[] };
const deployment = parse(readFileSync('deploy/deployment.yaml', 'utf8')) as V1Deployment;
const pod = deployment.spec!.template.spec!;
const operator = pod.containers[0]!;
const imageUser = Number(/^USER (\d+):(\d+)$/m.exec(readFileSync('Dockerfile', 'utf8'))![1]);
const fsGroup = Number(/`fsGroup: (\d+)`/.exec(section)![1]);

describe('the MCP sidecar of docs/how-to/mcp.md', () => {
  const [mcp] = added.containers;
  const volume = added.volumes.find((v) => v.name === mcp!.volumeMounts![0]!.name)!;

  it("mounts the token where its --mcp-token-file points, readable by the image's user through the pod's fsGroup", () => {
    const tokenFile = (parseOperatorArgs(mcp!.args!) as OperatorOptions).mcp!.tokenFile;
    assert.equal(tokenFile, `${mcp!.volumeMounts![0]!.mountPath}/token`);
    const mode = volume.secret!.defaultMode!;
    const readable = (mode & 0o004) !== 0 || (fsGroup === imageUser && (mode & 0o040) !== 0);
    assert.ok(readable, `mode ${mode.toString(8)} with fsGroup ${fsGroup}: user ${imageUser} cannot read the token`);
    assert.equal(mode & 0o002, 0, 'nobody may write it');
  });

  it("runs the operator's image with the operator container's security context", () => {
    assert.equal(mcp!.image, operator.image);
    assert.deepEqual(mcp!.securityContext, operator.securityContext);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
  });
});
