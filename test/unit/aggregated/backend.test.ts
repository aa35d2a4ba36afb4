// Which Coder serves a namespace, and the calls made through it against the Coder API
// double: the control plane's operator token, Coder refusing it as a 503 naming the control plane, and a
// redirect to another origin refused before the other origin is reached.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneBackend, staticBackend } from '../../../src/aggregated/backend.ts';
import { ApiStatusError } from '../../../src/aggregated/status.ts';
import { CoderWorkspaceStorage } from '../../../src/aggregated/storage/coderworkspace/workspace-storage.ts';
import { coderClientFactory } from '../../../src/controlplane/coder-client.ts';
import { controllerOwnerReference } from '../../../src/runtime/object-names.ts';
import { operatorTokenMarks } from '../../../src/controlplane/operator-token-marks.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../harness/coder-api-double.ts';
import { seedRunningWorkspaces } from '../../harness/coder-api-double/workspace-world.ts';
import { cacheOf } from '../../fixtures/cache.ts';
import { aControlPlane } from '../../fixtures/codercontrolplane.ts';

const logger = createLogger({ level: 'error' });
const token = 'aggregated1-operatortokenvalue0000000';
const ready = {
  url: 'http://coder.coder.svc.cluster.local:80',
  operatorAccessReady: true,
  operatorTokenSecretRef: { name: 'coder-operator-token', key: 'token' },
  operatorTokenSecretUID: 'token-secret-uid',
};

function tokenSecret(owner: CoderControlPlane): V1Secret {
  return {
    metadata: {
      name: `${owner.metadata.name}-operator-token`,
      namespace: owner.metadata.namespace,
      uid: 'token-secret-uid',
      ownerReferences: [controllerOwnerReference(coderControlPlaneResource, owner)],
      ...operatorTokenMarks(owner),
    },
    data: { token: Buffer.from(token).toString('base64') },
  };
}

const statusOf = (fn: () => unknown): ApiStatusError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiStatusError) return err;
    throw err;
  }
  throw new Error('no error');
};

let coder: CoderApiDouble;
before(async () => {
  coder = await startCoderApiDouble({ tokens: [token] });
  seedRunningWorkspaces(coder.state.world, coder.state.users, {
    organization: 'acme',
    template: 'starter',
    owner: 'alice',
    workspaces: ['dev'],
  });
});
after(() => coder?.stop());

describe('the control-plane backend (--app=all)', () => {
  const cp = aControlPlane('coder').inNamespace('coder').withUid('cp-uid-1').withStatus(ready).build();
  const factory = () => coderClientFactory(logger, coder.url, 5_000);
  const backendOf = (cps: CoderControlPlane[], secrets: V1Secret[] = cps.map(tokenSecret)) =>
    controlPlaneBackend({ controlPlanes: cacheOf(...cps), secrets: cacheOf(...secrets) }, { coderClient: factory() });

  it('serves a namespace with its one eligible control plane, with the operator token', async () => {
    const backend = backendOf([cp]);
    assert.deepEqual(backend.namespaces(), ['coder']);
    const items = await new CoderWorkspaceStorage(backend).list('coder');
    assert.deepEqual(
      items.map((w) => w.metadata.name),
      ['acme.alice.dev'],
    );
    assert.equal(coder.requests.at(-1)!.token, token);
  });

  it('answers 503 without an eligible control plane and 400 with two', () => {
    assert.equal(statusOf(() => backendOf([]).forNamespace('coder')).code, 503);
    const dotted = aControlPlane('co.der').inNamespace('coder').withUid('u2').withStatus(ready).build();
    assert.match(
      statusOf(() => backendOf([dotted]).forNamespace('coder')).message,
      /no eligible CoderControlPlane instances found in namespace "coder": the namespace is served by its one CoderControlPlane whose operator access is ready \(status.operatorAccessReady true/,
    );
    assert.match(
      statusOf(() => backendOf([]).forNamespace('coder')).message,
      /kubectl get codercontrolplanes -n coder -o jsonpath=.*OperatorAccessReady/,
    );
    const notReady = aControlPlane('coder')
      .inNamespace('coder')
      .withUid('u3')
      .withStatus({ ...ready, operatorAccessReady: false })
      .build();
    assert.equal(statusOf(() => backendOf([notReady]).forNamespace('coder')).code, 503);
    const second = aControlPlane('other').inNamespace('coder').withUid('u4').withStatus(ready).build();
    const two = statusOf(() => backendOf([cp, second]).forNamespace('coder'));
    assert.equal(two.code, 400);
    assert.match(two.message, /multiple eligible CoderControlPlane instances in namespace "coder"/);
    const unowned = statusOf(() => backendOf([cp], []).forNamespace('coder'));
    assert.equal(unowned.code, 503);
    assert.match(unowned.message, /token Secret/);
  });

  it('answers 503 naming the control plane when Coder refuses the operator token, never 401 or 403', async () => {
    coder.failNext(1, 401, { message: 'API key expired', pathPrefix: '/api/v2/users/' });
    await assert.rejects(new CoderWorkspaceStorage(backendOf([cp])).get('coder', 'acme.alice.dev'), (err: ApiStatusError) => {
      assert.equal(err.code, 503);
      assert.match(err.message, /Coder refused the operator token of CoderControlPlane "coder\/coder" \(401\)/);
      assert.doesNotMatch(err.message, /127\.0\.0\.1/, 'no Coder URL in the message');
      return true;
    });
  });

  it('refuses a redirect to another origin; the other origin gets no request', async () => {
    let reached = 0;
    const other = createServer((_req, res) => {
      reached++;
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      coder.redirect('/api/v2/users/', { to: `http://127.0.0.1:${(other.address() as AddressInfo).port}/api/v2/users/`, times: 1 });
      await assert.rejects(new CoderWorkspaceStorage(backendOf([cp])).get('coder', 'acme.alice.dev'), (err: ApiStatusError) => {
        assert.equal(err.code, 500);
        assert.match(err.message, /redirected to another origin; the call was refused/);
        return true;
      });
      assert.equal(reached, 0);
    } finally {
      other.close();
    }
  });
});

describe('the static backend (--app=aggregated-apiserver)', () => {
  it('serves only --coder-namespace', () => {
    const backend = staticBackend({ url: 'http://127.0.0.1:1', token, namespace: 'coder', timeoutMs: 1000, logger });
    assert.deepEqual(backend.namespaces(), ['coder']);
    const other = statusOf(() => backend.forNamespace('other'));
    assert.equal(other.code, 400);
    assert.match(other.message, /namespace "other" is not served by this aggregated API server \(configured for "coder"\)/);
  });

  it('starts unconfigured with every request a 503, and refuses half a configuration or no namespace', () => {
    const none = staticBackend({ timeoutMs: 1000, logger });
    assert.match(statusOf(() => none.forNamespace('coder')).message, /configure --coder-url and --coder-session-token/);
    assert.throws(() => staticBackend({ url: 'http://127.0.0.1:1', timeoutMs: 1000, logger }), /partially configured/);
    assert.throws(() => staticBackend({ url: 'http://127.0.0.1:1', token, timeoutMs: 1000, logger }), /configure --coder-namespace/);
  });

  it('refuses a token of two lines at start, naming the flag but not the value; a re-read one keeps the last token', async (t) => {
    const lines = ['aggregated1-firstlineofthetoken', 'secondlineofthetoken'];
    const refused = (options: { token?: string; tokenFile?: string }) => {
      assert.throws(
        () => staticBackend({ url: coder.url, namespace: 'coder', timeoutMs: 1000, logger, ...options }),
        (err: Error) => {
          assert.match(err.message, /^--coder-session-token(-file: \S+)?: the Coder session token contains a space, line break/);
          for (const line of lines) assert.ok(!err.message.includes(line), 'the message quotes the token');
          return true;
        },
      );
    };
    refused({ token: lines.join('\n') });
    const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
    const file = join(dir, 'token');
    writeFileSync(file, `${lines.join('\r\n')}\n`);
    refused({ tokenFile: file });

    writeFileSync(file, `${token}\n`);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const backend = staticBackend({ url: coder.url, tokenFile: file, namespace: 'coder', timeoutMs: 1000, logger });
    writeFileSync(file, lines.join('\n'));
    t.mock.timers.tick(60_000);
    await new CoderWorkspaceStorage(backend).list('coder');
    assert.equal(coder.requests.at(-1)!.token, token, 'the last good token is kept');
    rmSync(dir, { recursive: true });
  });

  it('reads --coder-session-token-file at start and again after a minute, keeping the last token when the file cannot be read', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
    const file = join(dir, 'token');
    assert.throws(
      () => staticBackend({ url: coder.url, tokenFile: file, namespace: 'coder', timeoutMs: 1000, logger }),
      /cannot read .*ENOENT/,
    );
    writeFileSync(file, '\n');
    assert.throws(() => staticBackend({ url: coder.url, tokenFile: file, namespace: 'coder', timeoutMs: 1000, logger }), /is empty/);
    const rotated = 'aggregated1-rotatedtokenvalue00000000';
    coder.addToken(rotated);
    writeFileSync(file, `${token}\n`);
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const backend = staticBackend({ url: coder.url, tokenFile: file, namespace: 'coder', timeoutMs: 1000, logger });
    const tokenSent = async () => {
      await new CoderWorkspaceStorage(backend).list('coder');
      return coder.requests.at(-1)!.token;
    };
    assert.equal(await tokenSent(), token);
    writeFileSync(file, rotated);
    assert.equal(await tokenSent(), token, 'not read again within the minute');
    t.mock.timers.tick(60_000);
    assert.equal(await tokenSent(), rotated);
    rmSync(file);
    t.mock.timers.tick(60_000);
    assert.equal(await tokenSent(), rotated, 'a failed re-read keeps the token');
  });
});
