// The template search query of GET /api/v2/templates?q=… in the double, as coder/coder v2.26.1 reads it
// (coderd/searchquery/search.go Templates and searchTerms, coderd/templates.go fetchTemplates,
// coderd/database/queries/templates.sql GetTemplatesWithFilter): lower-cased, space-separated key:value
// terms, a bare word searching names; deprecated templates left out unless deprecated:true, which lists
// only those; Coder's order (name, then id).
import type { components } from '../../../generated/coder-api.ts';
import type { Answer } from './handlers.ts';
import { givenTwice, notAQueryParam, organizationTerm, parseBool, searchTerms, type Invalid } from './search-terms.ts';
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

/** Keys Coder knows that the double does not filter on: a test sending one fails saying so. */
const unimplemented = new Set(['has-ai-task', 'author_id', 'author', 'has_external_agent']);

function templateFilter(state: CoderApiDoubleState, q: string): TemplateFilter | Invalid[] {
  const values = searchTerms(q, (word, add) => void add('name', word));
  if ('field' in values) return [values];
  const errors: Invalid[] = [];
  const filter: TemplateFilter = { deprecated: false, deleted: false };
  for (const [key, all] of values) {
    if (all.length > 1) {
      errors.push(givenTwice(key, all.length));
      continue;
    }
    const value = all[0]!;
    if (key === 'deprecated' || key === 'deleted') {
      const parsed = parseBool(key, value);
      if (typeof parsed === 'boolean') filter[key] = parsed;
      else errors.push(parsed);
    } else if (key === 'organization') {
      const org = organizationTerm(state.world.organizations, value);
      if (typeof org === 'string') filter.organizationId = org;
      else errors.push(org);
    } else if (key === 'exact_name') filter.exactName = value;
    else if (key === 'name') filter.fuzzyName = value;
    else if (key === 'ids') filter.ids = value.split(',');
    else if (unimplemented.has(key)) errors.push({ field: key, detail: `the Coder API double does not filter templates on "${key}"` });
    else errors.push(notAQueryParam(key));
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
