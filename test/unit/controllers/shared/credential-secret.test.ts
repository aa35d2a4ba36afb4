import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  credentialConsent,
  credentialDestinationsAnnotation,
  credentialLabel,
  credentialMarks,
  credentialSecretReadyType,
  credentialSecretReasons,
  credentialWriteConsent,
  credentialWrittenBy,
  credentialWrittenByAnnotation,
  parseCredentialDestinations,
  resolveCredentialSecret,
  type CredentialConsumer,
} from '../../../../src/controllers/shared/credential-secret.ts';
import { aWorkspaceProxy } from '../../../fixtures/coderworkspaceproxy.ts';

const secretValue = 'sk-live-DO-NOT-LEAK-7f3a9c';
const proxy: CredentialConsumer = aWorkspaceProxy('eu-west').inNamespace('coder').build();
const ref = { name: 'proxy-creds', key: 'token' };
const ownerRef = (uid: string, controller = true): V1OwnerReference => ({
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderWorkspaceProxy',
  name: 'eu-west',
  uid,
  controller,
});

class SecretBuilder {
  private readonly secret: V1Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: ref.name, namespace: 'coder' } };
  labelled(value = 'true'): this {
    this.secret.metadata!.labels = { [credentialLabel]: value };
    return this;
  }
  destinations(value: string): this {
    this.secret.metadata!.annotations = { [credentialDestinationsAnnotation]: value };
    return this;
  }
  marked(): this {
    return this.labelled().destinations('coderworkspaceproxy/eu-west');
  }
  writtenBy(value: string): this {
    this.secret.metadata!.annotations = { ...this.secret.metadata!.annotations, [credentialWrittenByAnnotation]: value };
    return this;
  }
  withRawData(data: Record<string, string>): this {
    this.secret.data = data;
    return this;
  }
  with(key: string, value: string): this {
    return this.withRawData({ ...this.secret.data, [key]: Buffer.from(value).toString('base64') });
  }
  ownedBy(...refs: V1OwnerReference[]): this {
    this.secret.metadata!.ownerReferences = refs;
    return this;
  }
  build(): V1Secret {
    return structuredClone(this.secret);
  }
}
const aSecret = () => new SecretBuilder();
const { SecretNotFound, NotMarkedAsCredential, DestinationNotListed, KeyNotFound, ValueNotOwned } = credentialSecretReasons;

describe('resolveCredentialSecret', () => {
  const rows: [string, V1Secret | undefined, string | undefined][] = [
    ['the Secret does not exist', undefined, SecretNotFound],
    [
      'the Secret has no label',
      aSecret().destinations('coderworkspaceproxy/eu-west').with('token', secretValue).build(),
      NotMarkedAsCredential,
    ],
    [
      'the label is not exactly "true"',
      aSecret().labelled('True').destinations('coderworkspaceproxy/eu-west').with('token', secretValue).build(),
      NotMarkedAsCredential,
    ],
    ['the Secret has no label and lacks the key', aSecret().with('other', secretValue).build(), NotMarkedAsCredential],
    [
      'the Secret is labelled but has no destinations annotation',
      aSecret().labelled().with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the annotation lists another proxy',
      aSecret().labelled().destinations('coderworkspaceproxy/us-east').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the annotation lists another kind with this name',
      aSecret().labelled().destinations('coderprovisioner/eu-west').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the annotation allows every object of another kind',
      aSecret().labelled().destinations('coderprovisioner/*').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the annotation writes the kind in another case',
      aSecret().labelled().destinations('CoderWorkspaceProxy/eu-west').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the annotation names the proxy with a namespace in front',
      aSecret().labelled().destinations('coder/coderworkspaceproxy/eu-west').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    ['the annotation is a bare *', aSecret().labelled().destinations('*').with('token', secretValue).build(), DestinationNotListed],
    [
      'the annotation lists the name in another case',
      aSecret().labelled().destinations('coderworkspaceproxy/EU-West').with('token', secretValue).build(),
      DestinationNotListed,
    ],
    [
      'the destination is not listed and the key is missing',
      aSecret().labelled().destinations('coderworkspaceproxy/us-east').build(),
      DestinationNotListed,
    ],
    ['the Secret is marked but lacks the key', aSecret().marked().with('other', secretValue).build(), KeyNotFound],
    ['the Secret is marked but has no data', aSecret().marked().build(), KeyNotFound],
    ['the value is empty', aSecret().marked().with('token', '').build(), KeyNotFound],
    ['the value is only whitespace', aSecret().marked().with('token', ' \n\t').build(), KeyNotFound],
    ['the Secret is marked and lists the proxy', aSecret().marked().with('token', secretValue).build(), undefined],
    [
      'the annotation allows every proxy',
      aSecret().labelled().destinations('coderworkspaceproxy/*').with('token', secretValue).build(),
      undefined,
    ],
    [
      'the entries have spaces around them and empty ones between',
      aSecret()
        .labelled()
        .destinations(' , coderprovisioner/default ,, \tcoderworkspaceproxy/eu-west ,')
        .with('token', secretValue)
        .build(),
      undefined,
    ],
    [
      'the proxy is the controller owner of an unmarked Secret',
      aSecret().ownedBy(ownerRef('uid-eu-west')).with('token', secretValue).build(),
      undefined,
    ],
    ['the proxy is the controller owner but the key is missing', aSecret().ownedBy(ownerRef('uid-eu-west')).build(), KeyNotFound],
    [
      'an earlier proxy of the same name owned the unmarked Secret',
      aSecret().ownedBy(ownerRef('uid-earlier')).with('token', secretValue).build(),
      NotMarkedAsCredential,
    ],
    [
      'the proxy owns the unmarked Secret without being its controller',
      aSecret().ownedBy(ownerRef('uid-eu-west', false)).with('token', secretValue).build(),
      NotMarkedAsCredential,
    ],
  ];
  for (const [when, secret, reason] of rows) {
    it(`${reason ? `reports ${reason}` : 'hands over the value'} when ${when}`, () => {
      const result = resolveCredentialSecret(proxy, ref, secret);
      if (reason === undefined) {
        assert.deepEqual(result, { ready: true, value: secretValue });
        return;
      }
      assert.equal(result.ready, false);
      if (result.ready) return;
      assert.equal(result.reason, reason);
      assert.ok(result.message.includes('Secret "coder/proxy-creds"'), result.message);
      assert.ok(result.message.includes('"token"'), result.message);
      for (const leak of [secretValue, Buffer.from(secretValue).toString('base64')]) {
        assert.ok(!result.message.includes(leak), `message leaks the value: ${result.message}`);
      }
    });
  }

  it('says which label and which destination entry to add', () => {
    const unmarked = resolveCredentialSecret(proxy, ref, aSecret().with('token', secretValue).build());
    assert.ok(!unmarked.ready);
    assert.match(unmarked.message, /label coder\.com\/credential=true/);
    assert.match(unmarked.message, /"coderworkspaceproxy\/eu-west" in the annotation coder\.com\/credential-destinations/);
    const unlisted = resolveCredentialSecret(proxy, ref, aSecret().labelled().destinations('coderworkspaceproxy/us-east').build());
    assert.ok(!unlisted.ready);
    assert.match(unlisted.message, /add the entry "coderworkspaceproxy\/eu-west" \(kind in lower case\) or "coderworkspaceproxy\/\*"/);
    const missing = resolveCredentialSecret(proxy, ref, undefined);
    assert.ok(!missing.ready);
    assert.match(
      missing.message,
      /does not exist\. Create it with the label coder\.com\/credential=true and "coderworkspaceproxy\/eu-west"/,
    );
  });

  it('decodes the value from base64 and trims the newline a file leaves behind', () => {
    const secret = aSecret().marked().with('token', 'tök€n with inner space\n').build();
    assert.deepEqual(resolveCredentialSecret(proxy, ref, secret), { ready: true, value: 'tök€n with inner space' });
  });

  it('does not look at the data of a Secret without both marks', () => {
    for (const secret of [aSecret().build(), aSecret().labelled().destinations('coderprovisioner/*').build()]) {
      Object.defineProperty(secret, 'data', {
        get() {
          throw new Error('data was read');
        },
      });
      assert.equal(resolveCredentialSecret(proxy, ref, secret).ready, false);
    }
  });
});

describe('credentialConsent', () => {
  it('lets a consumer write to a marked Secret that does not hold the key yet', () => {
    assert.deepEqual(credentialConsent(proxy, ref, aSecret().marked().build()), { consented: true });
  });

  it('refuses an unmarked Secret with the same reason and message as resolving it', () => {
    const secret = aSecret().labelled().build();
    const consent = credentialConsent(proxy, ref, secret);
    const resolved = resolveCredentialSecret(proxy, ref, secret);
    assert.ok(!consent.consented && !resolved.ready);
    assert.equal(consent.reason, DestinationNotListed);
    assert.equal(consent.message, resolved.message);
  });
});

describe('credentialWriteConsent', () => {
  const cases: [string, V1Secret, boolean][] = [
    ['a marked Secret whose key holds nothing', aSecret().marked().with('other', 'x').build(), true],
    ['a marked Secret whose key holds only white space', aSecret().marked().with('token', ' \n').build(), true],
    [
      'a value the written-by annotation says this object wrote',
      aSecret().marked().with('token', secretValue).writtenBy('token=coderworkspaceproxy/eu-west').build(),
      true,
    ],
    [
      'a value the object is controller owner of',
      aSecret().ownedBy(ownerRef(proxy.metadata.uid!)).with('token', secretValue).build(),
      true,
    ],
    ['a value a person put there', aSecret().marked().with('token', secretValue).build(), false],
    [
      'a value another object wrote',
      aSecret().marked().with('token', secretValue).writtenBy('token=coderworkspaceproxy/us-east').build(),
      false,
    ],
    [
      'a value this object wrote at another key',
      aSecret().marked().with('token', secretValue).writtenBy('other=coderworkspaceproxy/eu-west').build(),
      false,
    ],
    [
      'a value a wildcard destination lets every proxy read',
      aSecret().labelled().destinations('coderworkspaceproxy/*').with('token', secretValue).build(),
      false,
    ],
  ];
  for (const [what, secret, consented] of cases) {
    it(`${consented ? 'lets' : 'does not let'} a consumer write ${what}`, () => {
      assert.equal(credentialWriteConsent(proxy, ref, secret).consented, consented);
    });
  }

  it('lets the kind recognise a value as its own, written before the annotation existed', () => {
    assert.equal(credentialWriteConsent(proxy, ref, aSecret().marked().with('token', secretValue).build(), true).consented, true);
  });

  it('refuses a Secret without the marks for the marks, whatever it holds', () => {
    const consent = credentialWriteConsent(proxy, ref, aSecret().labelled().with('token', secretValue).build(), true);
    assert.ok(!consent.consented);
    assert.equal(consent.reason, DestinationNotListed);
  });

  it('names the Secret, the key and the annotation, and never the value', () => {
    const consent = credentialWriteConsent(proxy, ref, aSecret().marked().with('token', secretValue).build());
    assert.ok(!consent.consented);
    assert.equal(consent.reason, ValueNotOwned);
    assert.match(
      consent.message,
      /Secret "coder\/proxy-creds" \(key "token"\).*coderworkspaceproxy\/eu-west did not write.*coder\.com\/credential-written-by/,
    );
    assert.ok(!consent.message.includes(secretValue));
  });
});

describe('credentialWrittenBy', () => {
  it('names the writer of one key and keeps the entries of the other keys', () => {
    const secret = aSecret().marked().writtenBy('a=coderprovisioner/p,token=coderworkspaceproxy/us-east').build();
    assert.deepEqual(credentialWrittenBy(proxy, 'token', secret), {
      [credentialWrittenByAnnotation]: 'a=coderprovisioner/p,token=coderworkspaceproxy/eu-west',
    });
    assert.deepEqual(credentialWrittenBy(proxy, 'token', aSecret().build()), {
      [credentialWrittenByAnnotation]: 'token=coderworkspaceproxy/eu-west',
    });
  });

  it('makes the value it is written with one the writer may replace and another object may not', () => {
    const secret = aSecret().marked().with('token', secretValue).build();
    secret.metadata!.annotations = { ...secret.metadata!.annotations, ...credentialWrittenBy(proxy, 'token', secret) };
    assert.equal(credentialWriteConsent(proxy, ref, secret).consented, true);
    const other = { ...proxy, metadata: { ...proxy.metadata, name: 'us-east', uid: 'uid-us-east' } };
    secret.metadata!.annotations[credentialDestinationsAnnotation] = 'coderworkspaceproxy/*';
    assert.equal(credentialWriteConsent(other, ref, secret).consented, false);
  });
});

describe('parseCredentialDestinations', () => {
  const rows: [string | undefined, { kind: string; name: string }[]][] = [
    [undefined, []],
    ['', []],
    [' , ,, ', []],
    [
      'coderworkspaceproxy/eu-west, coderprovisioner/default',
      [
        { kind: 'coderworkspaceproxy', name: 'eu-west' },
        { kind: 'coderprovisioner', name: 'default' },
      ],
    ],
    ['  coderworkspaceproxy/*  ,', [{ kind: 'coderworkspaceproxy', name: '*' }]],
    ['coderworkspaceproxy, /eu-west, coderworkspaceproxy/, coder/coderworkspaceproxy/eu-west, *', []],
  ];
  for (const [annotation, expected] of rows) {
    it(`reads ${JSON.stringify(annotation)} as ${expected.length} destination(s), ignoring anything not <kind>/<name>`, () => {
      assert.deepEqual(parseCredentialDestinations(annotation), expected);
    });
  }

  it('keeps the case of the kind as written, so only lower-case kinds can match', () => {
    assert.deepEqual(parseCredentialDestinations('CoderWorkspaceProxy/eu-west'), [{ kind: 'CoderWorkspaceProxy', name: 'eu-west' }]);
  });
});

describe('credentialMarks', () => {
  it('labels the Secret as a credential and names its owner as the destination, as buildTokenSecret does', () => {
    assert.deepEqual(credentialMarks({ kind: 'CoderControlPlane', metadata: { name: 'coder' } }), {
      labels: { 'coder.com/credential': 'true' },
      annotations: { 'coder.com/credential-destinations': 'codercontrolplane/coder' },
    });
  });

  it('makes a Secret that its owner may use and an object of another name may not', () => {
    const marks = credentialMarks(proxy);
    const secret: V1Secret = { metadata: { name: ref.name, ...marks }, data: { token: Buffer.from(secretValue).toString('base64') } };
    assert.deepEqual(resolveCredentialSecret(proxy, ref, secret), { ready: true, value: secretValue });
    const other = { ...proxy, metadata: { ...proxy.metadata, name: 'us-east', uid: 'uid-us-east' } };
    assert.equal(credentialConsent(other, ref, secret).consented, false);
  });
});

describe('the condition constants', () => {
  it('are the CredentialSecretReady type and reasons of the schemas', () => {
    assert.equal(credentialSecretReadyType, 'CredentialSecretReady');
    assert.deepEqual(
      [SecretNotFound, NotMarkedAsCredential, DestinationNotListed, KeyNotFound, ValueNotOwned],
      ['SecretNotFound', 'NotMarkedAsCredential', 'DestinationNotListed', 'KeyNotFound', 'ValueNotOwned'],
    );
  });
});
