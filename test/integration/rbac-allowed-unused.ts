// Grants the control-plane controller and the runtime declare that the audit log of the controller suite
// cannot show, each with the reason it is still needed. Anything else granted and unused fails the test.
import type { Grant } from '../harness/rbac-usage.ts';

const workspaceVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
const escalation = 'the workspace Role grants it, and Kubernetes lets a subject grant only what it holds itself';
const applyCreates = 'server-side apply creates the object with a PATCH (audited as patch), and the API server checks create then';
const readOnConflict =
  'read only when a child the cache does not hold exists after all (its create-only apply answers 409); no suite test races the cache';
const metricsAuth = 'metrics authentication (runtime); the suite scrapes no metrics with a token';

export const grantsNotExercisedBySuite: ReadonlyMap<Grant, string> = new Map<Grant, string>([
  ...workspaceVerbs.flatMap((verb): [Grant, string][] => [
    [`/pods:${verb}`, escalation],
    [`/persistentvolumeclaims:${verb}`, escalation],
    [`apps/deployments:${verb}`, escalation],
  ]),
  ...[
    '/serviceaccounts',
    '/services',
    'rbac.authorization.k8s.io/roles',
    'rbac.authorization.k8s.io/rolebindings',
    'networking.k8s.io/ingresses',
    'gateway.networking.k8s.io/httproutes',
  ].map((resource): [Grant, string] => [`${resource}:create`, applyCreates]),
  [
    'coder.com/codercontrolplanes/finalizers:update',
    'children carry blockOwnerDeletion: an admission check asks for it, it is never a request of its own',
  ],
  ...[
    '/serviceaccounts',
    '/services',
    'rbac.authorization.k8s.io/roles',
    'rbac.authorization.k8s.io/rolebindings',
    'networking.k8s.io/ingresses',
  ].map((resource): [Grant, string] => [`${resource}:get`, readOnConflict]),
  ['/secrets:get', 'spec.envFrom Secrets are read live for CODER_ACCESS_URL; no suite test sets spec.envFrom'],
  ['authentication.k8s.io/tokenreviews:create', metricsAuth],
  ['authorization.k8s.io/subjectaccessreviews:create', metricsAuth],
]);
