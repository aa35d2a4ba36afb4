// Tools about Coder templates, named and authorized as the aggregated API's CoderTemplates
// (aggregation.coder.com codertemplates), called on the namespace's control plane with the operator token.
import { z } from 'zod';
import type { Schemas } from '../../coder/api-types.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import { listAllTemplates } from '../../coder/template-list.ts';
import type { ToolContext } from '../tool.ts';
import { defineTool, optionalNamespace, requiredName } from '../tool.ts';
import { parseCoderName } from './coder-names.ts';
import { controlPlaneNamespaces } from './control-plane-namespaces.ts';

const coderTemplates = { group: 'aggregation.coder.com', resource: 'codertemplates' };

/** spec.running of a CoderTemplate is a legacy field: Coder has no such state, so it always reads false. */
function summary(namespace: string, t: Schemas['Template']) {
  return {
    name: `${t.organization_name ?? ''}.${t.name}`,
    namespace,
    running: false,
    displayName: t.display_name ?? '',
    activeVersionID: t.active_version_id,
    deprecated: t.deprecated === true,
  };
}

async function readTemplate(ctx: ToolContext, namespace: string, name: string): Promise<Schemas['Template']> {
  const [organization, template] = parseCoderName('template', name);
  const coder = await ctx.coderFor(namespace);
  return coder
    .request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
      params: { organization: organization!, templateName: template! },
    })
    .catch((err: unknown) => {
      if (isCoderNotFound(err)) throw new Error(`codertemplates.aggregation.coder.com "${name}" not found in namespace "${namespace}"`);
      throw err;
    });
}

export const listTemplates = defineTool({
  name: 'list_templates',
  description: 'List CoderTemplate resources.',
  input: { namespace: optionalNamespace },
  async run({ namespace }, ctx) {
    await ctx.access.require({ verb: 'list', ...coderTemplates, ...(namespace ? { namespace } : {}) });
    const items = [];
    for (const ns of namespace ? [namespace] : await controlPlaneNamespaces(ctx)) {
      const coder = await ctx.coderFor(ns);
      // Deprecated templates too, as get_template finds them.
      const templates = await listAllTemplates(coder);
      items.push(...templates.map((t) => summary(ns, t)).sort((a, b) => a.name.localeCompare(b.name)));
    }
    return { items };
  },
});

export const getTemplate = defineTool({
  name: 'get_template',
  description: 'Get a CoderTemplate resource by namespace and name.',
  input: { namespace: requiredName('namespace'), name: requiredName('name') },
  async run({ namespace, name }, ctx) {
    await ctx.access.require({ verb: 'get', ...coderTemplates, namespace, name });
    return { template: summary(namespace, await readTemplate(ctx, namespace, name)) };
  },
});

export const setTemplateRunning = defineTool({
  name: 'set_template_running',
  description: 'Set spec.running for a CoderTemplate resource.',
  input: { namespace: requiredName('namespace'), name: requiredName('name'), running: z.boolean() },
  async run({ namespace, name, running }, ctx) {
    await ctx.access.require({ verb: 'get', ...coderTemplates, namespace, name });
    await ctx.access.require({ verb: 'update', ...coderTemplates, namespace, name });
    const template = summary(namespace, await readTemplate(ctx, namespace, name));
    // The Go original reported success and changed nothing; say so instead.
    if (running) {
      throw new Error(
        `CoderTemplate "${name}": spec.running is a legacy field with no counterpart in Coder (a template is always usable); nothing was changed`,
      );
    }
    return { template, updated: false };
  },
});
