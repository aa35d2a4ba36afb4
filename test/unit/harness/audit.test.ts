import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readAuditLog, writeVerbs } from '../../harness/audit.ts';
import { tempDir } from '../../harness/temp-dir.ts';

function record(user: string, verb: string, at: string, stage = 'ResponseComplete') {
  return JSON.stringify({
    auditID: `${user}-${verb}-${at}`,
    stage,
    verb,
    requestURI: '/api/v1/namespaces',
    user: { username: user },
    requestReceivedTimestamp: at,
    stageTimestamp: at,
  });
}

describe('readAuditLog', () => {
  it('keeps completed requests that match user, verbs and time window', async () => {
    const file = join(tempDir('audit'), 'audit.log');
    await writeFile(
      file,
      [
        record('op', 'get', '2026-01-01T00:00:00Z'),
        record('op', 'patch', '2026-01-01T00:00:05Z'),
        record('op', 'patch', '2026-01-01T00:00:06Z', 'ResponseStarted'),
        record('admin', 'create', '2026-01-01T00:00:07Z'),
        record('op', 'update', '2026-01-01T00:00:10Z'),
      ].join('\n') + '\n',
    );

    const writes = await readAuditLog(file, { username: 'op', verbs: writeVerbs, since: new Date('2026-01-01T00:00:01Z') });
    assert.deepEqual(
      writes.map((e) => e.verb),
      ['patch', 'update'],
    );
    const early = await readAuditLog(file, { until: new Date('2026-01-01T00:00:05Z') });
    assert.deepEqual(
      early.map((e) => e.verb),
      ['get', 'patch'],
    );
  });

  it('reads a log that does not exist yet as empty', async () => {
    assert.deepEqual(await readAuditLog(join(tempDir('audit'), 'no-such-audit.log')), []);
  });
});
