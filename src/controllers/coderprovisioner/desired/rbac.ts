// The desired ServiceAccount the daemons run as, and the Role and RoleBinding that let them manage
// workspace pods and volumes in this namespace.
import type { V1Role, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import type { CoderProvisioner } from '../../../../generated/types/coderprovisioner.ts';
import { namespaceOf, ownedMetadata, serviceAccountName, workloadName } from './names.ts';

export function buildServiceAccount(p: CoderProvisioner): V1ServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: ownedMetadata(p, serviceAccountName(p)) };
}

export function buildRole(p: CoderProvisioner): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: ownedMetadata(p, workloadName(p)),
    rules: [
      {
        apiGroups: [''],
        resources: ['pods', 'persistentvolumeclaims'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
    ],
  };
}

export function buildRoleBinding(p: CoderProvisioner): V1RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: ownedMetadata(p, workloadName(p)),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: workloadName(p) },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccountName(p), namespace: namespaceOf(p) }],
  };
}
