// Conditions and Events carry prose: words such as "key:" and "license:" there are English, not
// secrets, and only log lines mask them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventRecorder } from '../../../src/runtime/events.ts';
import { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { scrubSecrets } from '../../../src/runtime/redaction.ts';
import { capturedLog } from '../../harness/captured-log.ts';
import { startLocalApiServer, type LocalApiServer } from '../../harness/local-api-server.ts';

const prose = [
  'Coder refused the configured license: Invalid license',
  'provisioner key: name taken by a key this object did not create',
  'Tests pass: 3 of 3',
  'spec.key.name: Invalid value: "": must not be empty',
];

describe('condition and Event text', () => {
  let server: LocalApiServer;
  const notes: string[] = [];

  before(async () => {
    server = await startLocalApiServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const event = JSON.parse(body) as { note: string };
        notes.push(event.note);
        res.writeHead(201, { 'content-type': 'application/json' }).end(body);
      });
    });
  });
  after(() => server.close());

  for (const text of prose) {
    it(`keeps "${text}" in a condition message`, () => assert.equal(scrubSecrets(text), text));
  }

  it('keeps every word of those messages in the Event note written to the API server', async () => {
    const recorder = new EventRecorder(new KubeHttp(server.kubeConfig), {
      controller: 'test',
      instance: 'test-0',
      logger: createLogger({ level: 'silent' }),
    });
    const target = { apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'coder', namespace: 'coder', uid: 'uid-1' };
    for (const [i, text] of prose.entries())
      await recorder.record({ ...target, uid: `uid-${i}` }, 'Warning', 'Rejected', 'Reconcile', text);
    await recorder.flush();
    assert.deepEqual(notes, prose);
  });

  it('still masks a secret in a condition message', () => {
    assert.equal(scrubSecrets('connect: aws_secret_access_key = wJalrXUtnFEMI failed'), 'connect: aws_secret_access_key = REDACTED failed');
  });

  it('while a log line masks the value after "key:" and "license:"', () => {
    const { log, output } = capturedLog();
    log.info('provisioner key: pk-secret-1');
    log.info('license: lic-secret-2');
    assert.doesNotMatch(output(), /pk-secret-1|lic-secret-2/);
    assert.match(output(), /provisioner key: REDACTED/);
    assert.match(output(), /license: REDACTED/);
  });

  it("and keeps Coder's sentence after them in a log line", () => {
    const { log, output } = capturedLog();
    log.warn({ answer: 'Invalid license: token contains an invalid number of segments' }, 'Coder refused the license');
    assert.match(output(), /Invalid license: token contains an invalid number of segments/);
  });
});
