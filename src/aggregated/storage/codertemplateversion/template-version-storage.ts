// codertemplateversions: the versions of every template, read only: get and list.
// A version is made by changing a template's spec.files, and made active by promote.
import { coderTemplateVersionResource } from '../../../../generated/aggregated/resources.ts';
import type { Schemas } from '../../../coder/api-types.ts';
import { listAllTemplates } from '../../../coder/template-list.ts';
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { parseVersionName } from '../../convert/object-names.ts';
import type { CoderTemplateVersion } from '../../../../generated/aggregated/types.ts';
import { templateVersionObject } from '../../convert/template-version.ts';
import { coderCall } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import type { Storage } from '../storage.ts';

const resource = coderTemplateVersionResource.names.plural;

export class CoderTemplateVersionStorage implements Storage {
  readonly names = coderTemplateVersionResource.names;
  readonly verbs = coderTemplateVersionResource.verbs;
  private readonly backend: CoderBackend;
  private readonly lists = new ListCache<CoderTemplateVersion[]>();
  private readonly call = coderCall(resource);

  /** `templates`: a write to a template through this server (new files, promote) drops its namespace's cached list. */
  constructor(backend: CoderBackend, templates: Required<Pick<Storage, 'watch'>>) {
    this.backend = backend;
    templates.watch((_, template) => this.lists.invalidate(template.metadata.namespace));
  }

  list(namespace: string): Promise<CoderTemplateVersion[]> {
    return this.lists.get(namespace, async () => {
      const target = this.backend.forNamespace(namespace);
      const templates = await this.call(target, '<list>', () => listAllTemplates(target.client));
      const items: CoderTemplateVersion[] = [];
      for (const template of templates)
        for (const v of await this.versionsOf(target, template)) items.push(templateVersionObject(v, template, namespace));
      return items;
    });
  }

  async get(namespace: string, name: string): Promise<CoderTemplateVersion> {
    const [org, templateName, versionName] = parseVersionName(name);
    const target = this.backend.forNamespace(namespace);
    const organization = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const template = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
        params: { organization: organization.id, templateName },
      }),
    );
    const version = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/templates/{template}/versions/{templateVersionName}', {
        params: { template: template.id, templateVersionName: versionName },
      }),
    );
    return templateVersionObject(version, { ...template, organization_name: template.organization_name ?? organization.name }, namespace);
  }

  private versionsOf(target: CoderTarget, template: Schemas['Template']) {
    return this.call(target, '<list>', () =>
      target.client.request('GET', '/api/v2/templates/{template}/versions', { params: { template: template.id } }),
    );
  }
}
