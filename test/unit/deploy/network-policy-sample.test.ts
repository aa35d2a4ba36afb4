import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { V1Deployment, V1LabelSelector } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { buildDeployment } from '../../../src/controllers/codercontrolplane/desired/deployment.ts';
import { buildService } from '../../../src/controllers/codercontrolplane/desired/service.ts';
import { operatorApiURL } from '../../../src/controlplane/endpoints.ts';

/** The sample as YAML has it (the client's V1NetworkPolicy calls `from` `_from`). */
interface IngressRule {
  from?: { namespaceSelector?: V1LabelSelector; podSelector?: V1LabelSelector }[];
  ports: { protocol: string; port: number }[];
}
interface NetworkPolicy {
  metadata: { name: string; namespace: string };
  spec: { podSelector: V1LabelSelector; policyTypes: string[]; ingress: IngressRule[] };
}

const policy = parse(readFileSync('config/samples/networkpolicy-coder-operator.yaml', 'utf8')) as NetworkPolicy;
const operator = parse(readFileSync('deploy/deployment.yaml', 'utf8')) as V1Deployment;
const kustomizeNamespace = (parse(readFileSync('config/default/kustomization.yaml', 'utf8')) as { namespace: string }).namespace;
const sampleControlPlane = parse(readFileSync('config/samples/coder_v1alpha1_codercontrolplane.yaml', 'utf8')) as CoderControlPlane;
// The case the sample is for: the same control plane with built-in TLS, as the API server returns it.
const controlPlane: CoderControlPlane = {
  ...sampleControlPlane,
  metadata: { ...sampleControlPlane.metadata, uid: 'uid-1' },
  spec: { ...sampleControlPlane.spec, tls: { secretNames: ['coder-tls'] } },
};
const coder = buildDeployment(controlPlane, { accessUrlFromEnvFrom: false });
const coderContainer = coder.spec!.template.spec!.containers.find((c) => c.name === 'coder')!;

const [fromOperator, fromAnyone] = policy.spec!.ingress!;
const portsOf = (rule: IngressRule | undefined) => rule!.ports.map((p) => `${p.protocol}/${p.port}`);

describe('config/samples/networkpolicy-coder-operator.yaml', () => {
  it("selects the control plane's pods by the labels the operator gives them, in their namespace", () => {
    assert.equal(policy.metadata!.namespace, controlPlane.metadata!.namespace);
    assert.deepEqual(policy.spec!.podSelector.matchLabels, coder.spec!.selector.matchLabels);
    assert.deepEqual(policy.spec!.policyTypes, ['Ingress']);
  });

  it("lets only the operator's pods reach the port the operator sends the token to", () => {
    const [peer, ...others] = fromOperator!.from!;
    assert.equal(others.length, 0);
    assert.deepEqual(peer!.namespaceSelector!.matchLabels, { 'kubernetes.io/metadata.name': operator.metadata!.namespace });
    assert.equal(operator.metadata!.namespace, kustomizeNamespace);
    assert.deepEqual(peer!.podSelector!.matchLabels, operator.spec!.selector.matchLabels);
    for (const [label, value] of Object.entries(peer!.podSelector!.matchLabels!)) {
      assert.equal(operator.spec!.template.metadata!.labels![label], value);
    }
    // operatorApiURL's port is a Service port; the policy names the container port behind it.
    const servicePort = Number(new URL(operatorApiURL(controlPlane)).port || 80);
    const target = buildService(controlPlane).spec!.ports!.find((p) => p.port === servicePort)!.targetPort;
    assert.deepEqual(portsOf(fromOperator), [`TCP/${target}`]);
    assert.equal(coderContainer.ports!.find((p) => p.name === 'http')!.containerPort, target);
  });

  it('leaves the HTTPS port open to every client of status.url, and nothing else', () => {
    assert.equal(fromAnyone!.from, undefined);
    assert.deepEqual(portsOf(fromAnyone), [`TCP/${coderContainer.ports!.find((p) => p.name === 'https')!.containerPort}`]);
    assert.equal(policy.spec!.ingress!.length, 2);
  });
});
