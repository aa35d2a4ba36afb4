// Every workspace a search query finds, a page at a time: one answer for 10,000 workspaces is larger than
// the client's body limit (about 1.5 KiB a workspace, more with agents and apps). Coder pages the list by
// offset and limit and gives the count of all matches with each page (coder/coder v2.26.1
// coderd/workspaces.go workspaces, codersdk/workspaces.go WorkspacesResponse). A workspace that moves in
// Coder's order while the pages are read may be read twice (the pages are merged by ID) or missed until the
// next list.
import type { Schemas } from './api-types.ts';
import type { CoderClient } from './client.ts';

/** Workspaces per page: 500 of the largest seen (about 5 KiB with agents and apps) stay well under 4 MiB. */
export const workspacePageSize = 500;
/** Pages asked for at once once the first page gave the count. */
const pagesAtOnce = 4;

export async function listAllWorkspaces(
  client: CoderClient,
  q: string,
  { signal, pageSize = workspacePageSize }: { signal?: AbortSignal; pageSize?: number } = {},
): Promise<Schemas['Workspace'][]> {
  const page = (offset: number) =>
    client.request('GET', '/api/v2/workspaces', { query: { q, limit: pageSize, offset }, ...(signal ? { signal } : {}) });
  const first = await page(0);
  const byId = new Map(first.workspaces.map((ws) => [ws.id, ws]));
  const offsets: number[] = [];
  for (let offset = pageSize; offset < first.count; offset += pageSize) offsets.push(offset);
  for (let i = 0; i < offsets.length; i += pagesAtOnce) {
    for (const next of await Promise.all(offsets.slice(i, i + pagesAtOnce).map(page))) {
      for (const ws of next.workspaces) byId.set(ws.id, ws);
    }
  }
  return [...byId.values()];
}
