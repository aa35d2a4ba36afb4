// Which Coder roles the operator user needs for one control plane: the site role owner while the control
// plane has a license Secret or an object that calls an owner-only Coder API through it, otherwise
// organization-admin in every organization. Objects being deleted count: their finalizers still call Coder.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { parseDatabaseURL } from '../../coder/operator-access/database-url.ts';
import { organizationAdminRoles, ownerRoles, type OperatorRoles } from '../../coder/operator-access/roles.ts';
import type { ResourceKind } from '../../runtime/resource.ts';

/** An object of a kind that names its control plane in spec.controlPlaneRef. */
export interface ControlPlaneDependent {
  metadata?: { name?: string; namespace?: string };
  spec?: { controlPlaneRef?: { name?: string } };
}

/**
 * The kinds whose Coder calls need owner (docs/how-to/deploy-controller.md lists each call and the Coder
 * source that says so). A CoderWorkspaceProxy with spec.bootstrap.credentialsSecretRef calls Coder with a
 * token of its own, and names no control plane.
 */
export const ownerDependentKinds: readonly ResourceKind[] = [
  coderWorkspaceProxyResource,
  coderTemplateTestResource,
  coderAIProviderResource,
  coderAIGatewayKeyResource,
  coderMCPServerResource,
];

/** The name of the control plane an object names, if it names one (a spec of another shape names none). */
export function controlPlaneNamed(obj: ControlPlaneDependent): string | undefined {
  const name = obj.spec?.controlPlaneRef?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

export interface RoleChoice {
  roles: OperatorRoles;
  /** What needs owner: "spec.licenseSecretRef", "<Kind> <name>" and "CoderControlPlane <ns>/<name>"; empty with organization-admin. */
  neededBy: string[];
}

type Dependents = ReadonlyMap<ResourceKind, readonly ControlPlaneDependent[]>;

/** What of this control plane needs owner; `dependents` holds, per kind, the objects of its namespace (whatever they name). */
export function ownerNeeds(cp: CoderControlPlane, dependents: Dependents): string[] {
  const named: string[] = [];
  for (const [kind, objects] of dependents) {
    for (const obj of objects) {
      if (obj.metadata?.namespace === cp.metadata.namespace && controlPlaneNamed(obj) === cp.metadata.name) {
        named.push(`${kind.kind} ${obj.metadata?.name}`);
      }
    }
  }
  return [...(cp.spec?.licenseSecretRef?.name ? ['spec.licenseSecretRef'] : []), ...named.sort()];
}

/**
 * The roles for a control plane. The operator user is one per database, so a control plane that shares the
 * database (`sharing`, with the objects of its own namespace) and needs owner makes it owner for both:
 * otherwise each reconcile would undo the other's roles.
 */
export function chooseOperatorRoles(
  cp: CoderControlPlane,
  dependents: Dependents,
  sharing: readonly { cp: CoderControlPlane; dependents: Dependents }[] = [],
): RoleChoice {
  const neededBy = ownerNeeds(cp, dependents);
  for (const other of sharing) {
    if (ownerNeeds(other.cp, other.dependents).length)
      neededBy.push(`CoderControlPlane ${other.cp.metadata.namespace}/${other.cp.metadata.name}`);
  }
  return { roles: neededBy.length ? ownerRoles : organizationAdminRoles, neededBy };
}

/**
 * Whether two database URLs reach the same Coder database as the same PostgreSQL user: host, port,
 * database, user, password and options alike. A control plane counts as sharing only with the very
 * credentials, so nobody can widen another control plane's operator user by naming its host alone.
 */
export function sameDatabase(a: string, b: string): boolean {
  try {
    const [x, y] = [parseDatabaseURL(a), parseDatabaseURL(b)];
    return (
      x.host.toLowerCase() === y.host.toLowerCase() &&
      x.port === y.port &&
      x.database === y.database &&
      x.user === y.user &&
      x.password === y.password &&
      (x.options ?? '') === (y.options ?? '')
    );
  } catch {
    return false;
  }
}

const shownNeeds = 3;

/** "site role owner (needed by spec.licenseSecretRef, CoderWorkspaceProxy eu)" or "organization-admin in every organization". */
export function describeChoice(choice: RoleChoice): string {
  if (!choice.neededBy.length) return 'organization-admin in every organization (nothing of this control plane needs owner)';
  const shown = choice.neededBy.slice(0, shownNeeds).join(', ');
  const more = choice.neededBy.length > shownNeeds ? ` and ${choice.neededBy.length - shownNeeds} more` : '';
  return `site role owner (needed by ${shown}${more})`;
}
