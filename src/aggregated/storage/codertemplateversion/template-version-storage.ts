// codertemplateversions (reference §2.1, §2.3): the versions of every template, read only. Writes and
// watch answer 405; a version is made by changing a template's spec.files, made active by promote.
import type { Schemas } from '../../../coder/api-types.ts';
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { coderCall } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import { listAllTemplates } from '../../../coder/template-list.ts';
import { parseVersionName } from '../../convert/object-names.ts';
import type { CoderTemplateVersionObject } from '../../convert/objects.ts';
import { templateVersionObject } from '../../convert/template-version.ts';
import { methodNotAllowed } from '../../status.ts';
import type { Storage } from '../storage.ts';
import { WatchHub } from '../watch-hub.ts';

const resource = 'codertemplateversions';

/** `templates`: a write to a template through this server (new files, promote) drops its namespace's cached list. */
export function templateVersionStorage(backend: CoderBackend, templates: Pick<Storage, 'hub'>): Storage {
  const lists = new ListCache<CoderTemplateVersionObject[]>();
  templates.hub.subscribe((_, template) => lists.invalidate(template.metadata.namespace));

  const call = coderCall(resource);

  const versionsOf = (target: CoderTarget, template: Schemas['Template']) =>
    call(target, '<list>', () =>
      target.client.request('GET', '/api/v2/templates/{template}/versions', { params: { template: template.id } }),
    );

  const readOnly = () => {
    throw methodNotAllowed("a write; codertemplateversions are read only (change a template's spec.files, or promote)");
  };

  return {
    names: { plural: resource, singular: 'codertemplateversion', kind: 'CoderTemplateVersion', listKind: 'CoderTemplateVersionList' },
    verbs: ['get', 'list'],
    hub: new WatchHub(),
    list(namespace) {
      return lists.get(namespace, async () => {
        const target = backend.forNamespace(namespace);
        const templates = await call(target, '<list>', () => listAllTemplates(target.client));
        const items: CoderTemplateVersionObject[] = [];
        for (const template of templates)
          for (const v of await versionsOf(target, template)) items.push(templateVersionObject(v, template, namespace));
        return items;
      });
    },
    async get(namespace, name) {
      const [org, templateName, versionName] = parseVersionName(name);
      const target = backend.forNamespace(namespace);
      const organization = await call(target, name, () =>
        target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
      );
      const template = await call(target, name, () =>
        target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
          params: { organization: organization.id, templateName },
        }),
      );
      const version = await call(target, name, () =>
        target.client.request('GET', '/api/v2/templates/{template}/versions/{templateVersionName}', {
          params: { template: template.id, templateVersionName: versionName },
        }),
      );
      return templateVersionObject(version, { ...template, organization_name: template.organization_name ?? organization.name }, namespace);
    },
    create: readOnly,
    update: readOnly,
    delete: readOnly,
  };
}
