// PATCH /api/v2/templates/{id} in the double, as coder/coder v2.26.1 coderd/templates.go patchTemplateMeta
// handles it: the body is the template's whole state. Fields codersdk/templates.go UpdateTemplateMeta
// declares as pointers (display_name, description, icon, deprecation_message, ...) keep their value when
// omitted; every number and boolean is taken as sent, so an omitted one is 0 or false; an empty or omitted
// name keeps the name yet never equals it, so such a request always writes (200). Nothing to change is 304
// without a body; a name another template of the organization has, in any case, is a 409 (the unique index
// templates_organization_id_name_idx on lower(name), coderd/database/dump.sql). Without a license, the
// scheduling settings other than default_ttl_ms and activity_bump_ms are kept (coderd/schedule/template.go
// agplTemplateScheduleStore.Set), and a deprecation message can only be cleared
// (coderd/database/dbauthz/accesscontrol.go).
import type { components } from '../../../generated/coder-api.ts';
import type { Answer } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';

type Schemas = components['schemas'];

const minuteMs = 60_000;

/** Coder's settings of a new template (coderd/templates.go postTemplateByOrganization, no options given). */
export const newTemplateSettings = {
  default_ttl_ms: 0,
  activity_bump_ms: 3_600_000,
  allow_user_autostart: true,
  allow_user_autostop: true,
  allow_user_cancel_workspace_jobs: false,
  failure_ttl_ms: 0,
  time_til_dormant_ms: 0,
  time_til_dormant_autodelete_ms: 0,
  require_active_version: false,
  deprecated: false,
  deprecation_message: '',
} as const satisfies Partial<Schemas['Template']>;

const entitled = (state: CoderApiDoubleState, feature: string) => state.entitlements.features[feature]?.enabled === true;

function validations(request: Schemas['UpdateTemplateMeta']): { field: string; detail: string }[] {
  const out: { field: string; detail: string }[] = [];
  for (const field of ['default_ttl_ms', 'activity_bump_ms'] as const)
    if ((request[field] ?? 0) < 0) out.push({ field, detail: 'Must be a positive integer.' });
  for (const field of ['failure_ttl_ms', 'time_til_dormant_ms', 'time_til_dormant_autodelete_ms'] as const) {
    const value = request[field] ?? 0;
    if (value < 0 || (value > 0 && value < minuteMs)) out.push({ field, detail: 'Value must be at least one minute.' });
  }
  return out;
}

/** Applies the request to `template` (in place) and answers as Coder: 200 with the template, 304, or 400. */
export function patchTemplateMeta(
  state: CoderApiDoubleState,
  template: Schemas['Template'],
  request: Schemas['UpdateTemplateMeta'],
): Answer {
  const invalid = validations(request);
  if (invalid.length) return { status: 400, body: { message: 'Invalid request to update template metadata!', validations: invalid } };
  const current = (key: string) =>
    (template as Record<string, unknown>)[key] ?? (newTemplateSettings as Record<string, unknown>)[key] ?? '';
  // The state the request asks for, compared field by field as Coder does before it writes anything.
  const wanted = {
    // Coder compares the name as sent (req.Name == template.Name) and writes the template's own when it is empty.
    name: request.name ?? '',
    display_name: request.display_name ?? current('display_name'),
    description: request.description ?? current('description'),
    icon: request.icon ?? current('icon'),
    default_ttl_ms: request.default_ttl_ms ?? 0,
    activity_bump_ms: request.activity_bump_ms ?? 0,
    allow_user_autostart: request.allow_user_autostart ?? false,
    allow_user_autostop: request.allow_user_autostop ?? false,
    allow_user_cancel_workspace_jobs: request.allow_user_cancel_workspace_jobs ?? false,
    failure_ttl_ms: request.failure_ttl_ms ?? 0,
    time_til_dormant_ms: request.time_til_dormant_ms ?? 0,
    time_til_dormant_autodelete_ms: request.time_til_dormant_autodelete_ms ?? 0,
    require_active_version: request.require_active_version ?? false,
    deprecation_message: request.deprecation_message ?? current('deprecation_message'),
  };
  if (Object.entries(wanted).every(([key, value]) => current(key as keyof typeof wanted) === value)) return { status: 304 };

  const scheduling = [
    'allow_user_autostart',
    'allow_user_autostop',
    'failure_ttl_ms',
    'time_til_dormant_ms',
    'time_til_dormant_autodelete_ms',
  ] as const;
  const name = wanted.name || template.name;
  const lower = name.toLowerCase();
  if (
    state.world.templates.some(
      (t) => t.id !== template.id && t.organization_id === template.organization_id && t.name.toLowerCase() === lower,
    )
  )
    return {
      status: 409,
      body: {
        message: `Template with name ${JSON.stringify(wanted.name)} already exists.`,
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      },
    };
  const { require_active_version, deprecation_message, ...stored } = { ...wanted, name };
  // Without the licensed scheduling feature Coder keeps these whatever was sent.
  if (!entitled(state, 'advanced_template_scheduling')) for (const key of scheduling) Object.assign(stored, { [key]: current(key) });
  Object.assign(template, stored, { updated_at: new Date().toISOString() });
  // Without access control, a deprecation can only be cleared.
  if (entitled(state, 'access_control')) Object.assign(template, { require_active_version, deprecation_message });
  else if (deprecation_message === '') template.deprecation_message = '';
  template.deprecated = (template.deprecation_message ?? '') !== '';
  return { status: 200, body: template };
}
