import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldValidation, unknownFields, validateFields } from '../../../../src/aggregated/server/field-validation.ts';
import { templateObject } from '../../../../src/aggregated/convert/template.ts';
import { workspaceObject } from '../../../../src/aggregated/convert/workspace.ts';
import { ApiStatusError } from '../../../../src/aggregated/status.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const workspace = () =>
  workspaceObject(
    {
      id: id(1),
      name: 'dev',
      owner_name: 'alice',
      organization_name: 'acme',
      template_name: 'starter',
      created_at: '2026-01-02T03:04:05Z',
      last_used_at: '2026-01-02T04:04:05Z',
      ttl_ms: 3_600_000,
      autostart_schedule: 'CRON_TZ=UTC 0 9 * * 1-5',
      latest_build: {
        id: id(5),
        transition: 'start',
        status: 'running',
        template_version_id: id(6),
        deadline: '2026-01-02T05:04:05Z',
      },
    } as never,
    'coder',
  );

describe('fieldValidation', () => {
  it('finds no unknown field in what the server itself returns, so a patch of a live object is never refused', () => {
    assert.deepEqual(unknownFields('CoderWorkspace', workspace() as never), []);
    const template = templateObject(
      {
        id: id(2),
        name: 'starter',
        organization_name: 'acme',
        active_version_id: id(3),
        display_name: 'Starter',
        description: 'd',
        icon: '/i.svg',
        deprecated: false,
        created_at: '2026-01-02T03:04:05Z',
        updated_at: '2026-01-02T03:04:05Z',
      } as never,
      'coder',
    );
    assert.deepEqual(unknownFields('CoderTemplate', { ...template, spec: { ...template.spec, files: { 'main.tf': '' } } } as never), []);
  });

  it('names each unknown field by its path, in spec, status, metadata and at the top', () => {
    const ws = workspace() as Record<string, any>;
    ws.spec.replicas = 2;
    ws.status.extra = { a: 1 };
    ws.metadata.colour = 'red';
    ws.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': '{}' };
    ws.metadata.finalizers = ['x'];
    ws.metadata.managedFields = [{ manager: 'kubectl' }];
    ws.extraTop = true;
    assert.deepEqual(unknownFields('CoderWorkspace', ws).sort(), ['extraTop', 'metadata.colour', 'spec.replicas', 'status.extra']);
  });

  it('refuses under Strict naming the fields, warns under Warn (the default), says nothing under Ignore', () => {
    const body = { apiVersion: 'aggregation.coder.com/v1alpha1', kind: 'CoderWorkspace', spec: { running: true, colour: 'red' } };
    assert.throws(
      () => validateFields('CoderWorkspace', body, 'Strict'),
      (e: ApiStatusError) => e.code === 400 && e.message === 'strict decoding error: unknown field "spec.colour"',
    );
    assert.deepEqual(validateFields('CoderWorkspace', body, fieldValidation(null)), ['unknown field "spec.colour"']);
    assert.deepEqual(validateFields('CoderWorkspace', body, 'Ignore'), []);
    assert.throws(
      () => fieldValidation('strict'),
      (e: ApiStatusError) => e.code === 400 && /fieldValidation "strict" is not valid: use Strict, Warn or Ignore/.test(e.message),
    );
  });
});
