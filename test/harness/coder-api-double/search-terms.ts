// The search queries of Coder's list routes (templates, workspaces) as coder/coder v2.26.1 splits them
// (coderd/searchquery/search.go searchTerms, coderd/httpapi/queryparams.go): lower-cased, space-separated
// key:value terms (spaces inside double quotes do not split), a bare word going to a default key.

/** A refused term: Coder's validation error (field and detail). */
export type Invalid = { field: string; detail: string };

/** The values of each key of `q`; a bare word is added by `bare` (a string is the error it makes). */
export function searchTerms(
  q: string,
  bare: (word: string, add: (key: string, value: string) => void) => string | void,
): Map<string, string[]> | Invalid {
  const values = new Map<string, string[]>();
  const add = (key: string, value: string) => values.set(key, [...(values.get(key) ?? []), value.replace(/^"+|"+$/g, '')]);
  for (const element of q.toLowerCase().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []) {
    if (element.startsWith(':') || element.endsWith(':'))
      return { field: 'q', detail: `Query element "${element}" cannot start or end with ':'` };
    const parts = element.split(':');
    if (parts.length === 1) {
      const problem = bare(element, add);
      if (problem) return { field: 'q', detail: problem };
    } else if (parts.length === 2) add(parts[0]!, parts[1]!);
    else return { field: 'q', detail: `Query element "${element}" can only contain 1 ':'` };
  }
  return values;
}

/** Coder's refusal of a key given twice (coderd/httpapi/queryparams.go parseQueryParam). */
export function givenTwice(key: string, count: number): Invalid {
  return {
    field: key,
    detail: `Query param "${key}" provided more than once, found ${count} times. Only provide 1 instance of this query param.`,
  };
}

/** Go's strconv.ParseBool, as Coder's query parser reads a boolean. */
export function parseBool(key: string, value: string): boolean | Invalid {
  if (['1', 't', 'true'].includes(value)) return true;
  if (['0', 'f', 'false'].includes(value)) return false;
  return { field: key, detail: `Query param "${key}" must be a valid boolean: strconv.ParseBool: parsing "${value}": invalid syntax` };
}

/** Coder's refusal of a key no filter reads (coderd/httpapi/queryparams.go ErrorExcessParams). */
export const notAQueryParam = (key: string): Invalid => ({ field: key, detail: `"${key}" is not a valid query param` });

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The organization id of an organization:<value> term: a UUID as it is, else the id of the organization of
 * that name (coderd/searchquery/search.go parseOrganization).
 */
export function organizationTerm(organizations: readonly { id: string; name: string }[], value: string): string | Invalid {
  if (uuid.test(value)) return value;
  const org = organizations.find((o) => o.name.toLowerCase() === value);
  if (org) return org.id;
  return {
    field: 'organization',
    detail: `Query param "organization" has invalid value: organization "${value}" either does not exist, or you are unauthorized to view it`,
  };
}
