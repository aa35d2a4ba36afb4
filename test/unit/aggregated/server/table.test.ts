import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiate } from '../../../../src/aggregated/server/negotiation.ts';
import { humanDuration, table } from '../../../../src/aggregated/server/table.ts';
import { workspaceObject } from '../../../../src/aggregated/convert/workspace.ts';
import { ApiStatusError } from '../../../../src/aggregated/status.ts';

describe('ages as kubectl shows them', () => {
  it('reads like kube-apiserver durations', () => {
    assert.deepEqual(
      [5_000, 150_000, 1_800_000, 5 * 3_600_000 + 60_000, 30 * 3_600_000, 3 * 86_400_000, 800 * 86_400_000].map(humanDuration),
      ['5s', '2m30s', '30m', '5h1m', '30h', '3d', '2y'],
    );
  });
});

describe('Accept negotiation and Table output', () => {
  it('serves objects, Tables and PartialObjectMetadata, skipping protobuf', () => {
    assert.deepEqual(negotiate(undefined), { as: 'object' });
    assert.deepEqual(negotiate('application/json;as=Table;v=v1;g=meta.k8s.io,application/json'), { as: 'table', version: 'v1' });
    assert.deepEqual(
      negotiate(
        'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      ),
      { as: 'metadata', version: 'v1' },
    );
    assert.throws(
      () => negotiate('application/vnd.kubernetes.protobuf'),
      (e: ApiStatusError) => e.code === 406,
    );
  });

  it('gives workspaces useful columns', () => {
    const ws = workspaceObject(
      {
        id: '00000000-0000-4000-8000-000000000001',
        name: 'dev',
        owner_id: '00000000-0000-4000-8000-000000000002',
        owner_name: 'alice',
        organization_id: '00000000-0000-4000-8000-000000000003',
        organization_name: 'acme',
        template_id: '00000000-0000-4000-8000-000000000004',
        template_name: 'starter',
        created_at: '2026-01-02T03:04:05.123456Z',
        latest_build: {
          id: '00000000-0000-4000-8000-000000000005',
          workspace_id: '00000000-0000-4000-8000-000000000001',
          build_number: 1,
          transition: 'start',
          status: 'running',
          template_version_id: '00000000-0000-4000-8000-000000000006',
          job: { id: '00000000-0000-4000-8000-000000000007', status: 'succeeded' },
        },
      } as never,
      'coder',
    );
    assert.equal(ws.metadata.name, 'acme.alice.dev');
    assert.equal(ws.metadata.creationTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(ws.spec.running, true);
    assert.match(ws.metadata.resourceVersion!, /^[0-9a-f]{64}$/);
    const t = table([ws], { version: 'v1', kind: 'CoderWorkspace', includeObject: null, noHeaders: false }) as {
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[]; object: { kind: string } }[];
    };
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ['Name', 'Template', 'Running', 'Build', 'Auto Shutdown', 'Age'],
    );
    assert.deepEqual(t.rows[0]!.cells.slice(0, 5), ['acme.alice.dev', 'starter', true, 'running', '']);
    assert.match(String(t.rows[0]!.cells[5]), /^\d+(d|y)$/);
    assert.equal(t.rows[0]!.object.kind, 'PartialObjectMetadata');
  });
});
