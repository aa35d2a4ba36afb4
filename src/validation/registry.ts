// The generated validators by apiVersion and kind. A unit test checks that every kind in schemas/ is here.
import { coderAIGatewayKeyValidator } from '../../generated/validators/coderaigatewaykey.ts';
import { coderAIProviderValidator } from '../../generated/validators/coderaiprovider.ts';
import { coderControlPlaneValidator } from '../../generated/validators/codercontrolplane.ts';
import { coderMCPServerValidator } from '../../generated/validators/codermcpserver.ts';
import { coderProvisionerValidator } from '../../generated/validators/coderprovisioner.ts';
import { coderTemplateTestValidator } from '../../generated/validators/codertemplatetest.ts';
import { coderWorkspaceProxyValidator } from '../../generated/validators/coderworkspaceproxy.ts';
import type { ValidationError } from './error.ts';
import { runValidation, type KindValidator } from './validate.ts';

export const kindValidators: readonly KindValidator[] = [
  coderAIGatewayKeyValidator,
  coderAIProviderValidator,
  coderControlPlaneValidator,
  coderMCPServerValidator,
  coderProvisionerValidator,
  coderTemplateTestValidator,
  coderWorkspaceProxyValidator,
];

const byKey = new Map(kindValidators.map((v) => [`${v.apiVersion}/${v.kind}`, v]));

/** The validator of a kind, e.g. validatorFor('coder.com/v1alpha1', 'CoderControlPlane'). */
export function validatorFor(apiVersion: string, kind: string): KindValidator | undefined {
  return byKey.get(`${apiVersion}/${kind}`);
}

/** Validates an object of any registered kind; undefined when its apiVersion and kind are not ours. */
export function validateObject(obj: unknown, old?: unknown): ValidationError[] | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  const v = validatorFor(String(apiVersion), String(kind));
  return v && runValidation(v, obj, old);
}
