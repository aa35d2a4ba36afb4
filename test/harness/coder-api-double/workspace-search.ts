// The workspace list GET /api/v2/workspaces?q=… of the double, as coder/coder v2.26.1 reads and answers it
// (coderd/searchquery/search.go Workspaces, coderd/workspaces.go workspaces, coderd/database/queries/
// workspaces.sql GetWorkspaces): owner by username or me, template by name among templates not deleted,
// a part of the name, the status of the latest build, the organization by id or name, workspace ids; a bare
// word is a name, "owner/name" both; deleted workspaces left out; running workspaces first, then by owner
// and name ignoring case; a page of limit from offset (0: all) with the count of every match.
import type { components } from '../../../generated/coder-api.ts';
import type { Answer } from './handlers.ts';
import { givenTwice, notAQueryParam, organizationTerm, searchTerms, type Invalid } from './search-terms.ts';
import type { CoderApiDoubleState } from './state.ts';
import { workspaceAnswer, type StoredWorkspace } from './workspace-world.ts';

type Schemas = components['schemas'];

interface WorkspaceFilter {
  ownerUsername?: string;
  ownerId?: string;
  templateName?: string;
  name?: string;
  status?: string;
  organizationId?: string;
  ids?: string[];
}

const statuses = new Set([
  'pending',
  'starting',
  'running',
  'stopping',
  'stopped',
  'failed',
  'canceling',
  'canceled',
  'deleting',
  'deleted',
]);
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Keys Coder knows that the double does not filter on: a test sending one fails saying so. */
const unimplemented = new Set([
  'has-agent',
  'dormant',
  'last_used_after',
  'last_used_before',
  'outdated',
  'has-ai-task',
  'has_external_agent',
  'param',
]);

function workspaceFilter(state: CoderApiDoubleState, q: string, me: Schemas['User'] | undefined): WorkspaceFilter | Invalid[] {
  const values = searchTerms(q, (word, add) => {
    const parts = word.split('/');
    if (parts.length > 2) return `Query element "${word}" can only contain 1 '/'`;
    if (parts.length === 2) add('owner', parts[0]!);
    add('name', parts.at(-1)!);
  });
  if ('field' in values) return [values];
  const errors: Invalid[] = [];
  const filter: WorkspaceFilter = {};
  for (const [key, all] of values) {
    if (all.length > 1 && key !== 'id') {
      errors.push(givenTwice(key, all.length));
      continue;
    }
    const value = all[0]!;
    if (key === 'owner') {
      if (value === 'me') filter.ownerId = me?.id;
      else filter.ownerUsername = value;
    } else if (key === 'template') filter.templateName = value;
    else if (key === 'name') filter.name = value;
    else if (key === 'status') {
      if (statuses.has(value)) filter.status = value;
      else errors.push({ field: key, detail: `Query param "status" has invalid value: "${value}" is not a valid value` });
    } else if (key === 'organization') {
      const org = organizationTerm(state.world.organizations, value);
      if (typeof org === 'string') filter.organizationId = org;
      else errors.push(org);
    } else if (key === 'id') {
      filter.ids = all.flatMap((v) => v.split(','));
      const bad = filter.ids.find((id) => !uuid.test(id));
      if (bad) errors.push({ field: key, detail: `Query param "id" must be a valid uuid` });
    } else if (unimplemented.has(key)) errors.push({ field: key, detail: `the Coder API double does not filter workspaces on "${key}"` });
    else errors.push(notAQueryParam(key));
  }
  return errors.length ? errors : filter;
}

function matches(state: CoderApiDoubleState, filter: WorkspaceFilter, stored: StoredWorkspace): boolean {
  const w = stored.workspace;
  const lower = (s: unknown) => String(s ?? '').toLowerCase();
  if (stored.deleted) return false;
  if (filter.ownerId !== undefined && w.owner_id !== filter.ownerId) return false;
  if (filter.ownerUsername !== undefined) {
    const owner = state.users.find((u) => lower(u.username) === filter.ownerUsername);
    if (!owner || w.owner_id !== owner.id) return false;
  }
  if (filter.templateName !== undefined) {
    const template = state.world.templates.find((t) => t.id === w.template_id);
    if (!template || lower(template.name) !== filter.templateName) return false;
  }
  if (filter.name !== undefined && !lower(w.name).includes(filter.name)) return false;
  if (filter.status !== undefined && stored.builds[0]?.status !== filter.status) return false;
  if (filter.organizationId !== undefined && w.organization_id !== filter.organizationId) return false;
  return filter.ids === undefined || filter.ids.includes(w.id);
}

/** Coder's first sort key: the latest build is a start whose job ended without error or cancel. */
function runningFirst(ws: Schemas['Workspace']): number {
  const { transition, job } = ws.latest_build;
  return transition === 'start' && job.completed_at && !job.canceled_at && !job.error ? 0 : 1;
}

/** The answer of GET /api/v2/workspaces with the search query `q`, one page of `limit` (0: all) from `offset`. */
export function listWorkspacesAnswer(
  state: CoderApiDoubleState,
  q: string,
  page: { limit: number; offset: number },
  me?: Schemas['User'],
): Answer {
  const filter = workspaceFilter(state, q, me);
  if (Array.isArray(filter)) return { status: 400, body: { message: 'Invalid workspace search query.', validations: filter } };
  const lower = (s: unknown) => String(s ?? '').toLowerCase();
  const found = state.world.workspaces
    .filter((stored) => matches(state, filter, stored))
    .flatMap((stored) => workspaceAnswer(state.world, stored) ?? [])
    .sort(
      (a, b) =>
        runningFirst(a) - runningFirst(b) ||
        lower(a.owner_name).localeCompare(lower(b.owner_name)) ||
        lower(a.name).localeCompare(lower(b.name)),
    );
  const end = page.limit > 0 ? page.offset + page.limit : undefined;
  return { status: 200, body: { workspaces: found.slice(page.offset, end), count: found.length } };
}
