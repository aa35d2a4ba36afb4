// The template search query of GET /api/v2/templates?q=… in the double, as coder/coder v2.26.1 reads it
// (coderd/searchquery/search.go Templates and searchTerms, coderd/templates.go fetchTemplates,
// coderd/database/queries/templates.sql GetTemplatesWithFilter): lower-cased, space-separated key:value
// terms, a bare word searching names; deprecated templates left out unless deprecated:true, which lists
// only those; Coder's order (name, then id).
import type { components } from '../../../generated/coder-api.ts';
import type { Answer } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';

type Schemas = components['schemas'];

interface TemplateFilter {
  deprecated: boolean;
  deleted: boolean;
  organizationId?: string;
  exactName?: string;
  fuzzyName?: string;
  ids?: string[];
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Keys Coder knows that the double does not filter on: a test sending one fails saying so. */
const unimplemented = new Set(['has-ai-task', 'author_id', 'author', 'has_external_agent']);

type Invalid = { field: string; detail: string };

/** Go's strconv.ParseBool. */
function parseBool(key: string, value: string): boolean | Invalid {
  if (['1', 't', 'true'].includes(value)) return true;
  if (['0', 'f', 'false'].includes(value)) return false;
  return { field: key, detail: `Query param "${key}" must be a valid boolean: strconv.ParseBool: parsing "${value}": invalid syntax` };
}

function terms(q: string): Map<string, string[]> | Invalid {
  const values = new Map<string, string[]>();
  const add = (key: string, value: string) => values.set(key, [...(values.get(key) ?? []), value.replace(/^"+|"+$/g, '')]);
  // Spaces inside double quotes do not split.
  for (const element of q.toLowerCase().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []) {
    if (element.startsWith(':') || element.endsWith(':'))
      return { field: 'q', detail: `Query element "${element}" cannot start or end with ':'` };
    const parts = element.split(':');
    if (parts.length === 1) add('name', element);
    else if (parts.length === 2) add(parts[0]!, parts[1]!);
    else return { field: 'q', detail: `Query element "${element}" can only contain 1 ':'` };
  }
  return values;
}

function templateFilter(state: CoderApiDoubleState, q: string): TemplateFilter | Invalid[] {
  const values = terms(q);
  if ('field' in values) return [values];
  const errors: Invalid[] = [];
  const filter: TemplateFilter = { deprecated: false, deleted: false };
  for (const [key, all] of values) {
    if (all.length > 1) {
      errors.push({
        field: key,
        detail: `Query param "${key}" provided more than once, found ${all.length} times. Only provide 1 instance of this query param.`,
      });
      continue;
    }
    const value = all[0]!;
    if (key === 'deprecated' || key === 'deleted') {
      const parsed = parseBool(key, value);
      if (typeof parsed === 'boolean') filter[key] = parsed;
      else errors.push(parsed);
    } else if (key === 'organization') {
      const org = uuid.test(value) ? { id: value } : state.world.organizations.find((o) => o.name.toLowerCase() === value);
      if (org) filter.organizationId = org.id;
      else
        errors.push({
          field: key,
          detail: `Query param "organization" has invalid value: organization "${value}" either does not exist, or you are unauthorized to view it`,
        });
    } else if (key === 'exact_name') filter.exactName = value;
    else if (key === 'name') filter.fuzzyName = value;
    else if (key === 'ids') filter.ids = value.split(',');
    else if (unimplemented.has(key)) errors.push({ field: key, detail: `the Coder API double does not filter templates on "${key}"` });
    else errors.push({ field: key, detail: `"${key}" is not a valid query param` });
  }
  return errors.length ? errors : filter;
}

const isDeprecated = (t: Schemas['Template']) => (t.deprecation_message ?? '') !== '' || t.deprecated === true;

/**
 * The answer of a template list with the search query `q` (empty: every template that is not deprecated);
 * `organizationId` for the list of one organization, which Coder filters as organization:<id>.
 */
export function listTemplatesAnswer(state: CoderApiDoubleState, q: string, organizationId?: string): Answer {
  const filter = templateFilter(state, q);
  if (Array.isArray(filter)) return { status: 400, body: { message: 'Invalid template search query.', validations: filter } };
  if (organizationId) filter.organizationId = organizationId;
  // The double removes deleted templates outright.
  if (filter.deleted) return { status: 200, body: [] };
  const templates = state.world.templates
    .filter(
      (t) =>
        isDeprecated(t) === filter.deprecated &&
        (filter.organizationId === undefined || t.organization_id === filter.organizationId) &&
        (filter.exactName === undefined || t.name.toLowerCase() === filter.exactName) &&
        (filter.fuzzyName === undefined || t.name.toLowerCase().includes(filter.fuzzyName)) &&
        (filter.ids === undefined || filter.ids.includes(t.id)),
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
  return { status: 200, body: templates };
}
