// One key of a Secret as text (base64 decoded, as it is): undefined when the Secret or the key is
// missing. Callers decide what white space and an empty value mean for them.
import type { V1Secret } from '@kubernetes/client-node';

export function secretValue(secret: V1Secret | undefined, key: string): string | undefined {
  const encoded = secret?.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}
