// Every template a Coder has, deprecated ones included. Coder's template list leaves deprecated templates
// out unless the search query asks for them, and `deprecated:true` lists only those (coder/coder v2.26.1
// coderd/templates.go fetchTemplates, coderd/searchquery/search.go Templates; the same from v2.24 to
// v2.36), while a get by name finds either: two lists, so that a list shows what a get finds.
import type { Schemas } from './api-types.ts';
import type { CoderClient } from './client.ts';

/** Coder's order (name, then id) across both lists. */
export async function listAllTemplates(client: CoderClient): Promise<Schemas['Template'][]> {
  const [current, deprecated] = await Promise.all([
    client.request('GET', '/api/v2/templates'),
    client.request('GET', '/api/v2/templates', { query: { q: 'deprecated:true' } }),
  ]);
  const byId = new Map([...current, ...deprecated].map((t) => [t.id, t]));
  return [...byId.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
