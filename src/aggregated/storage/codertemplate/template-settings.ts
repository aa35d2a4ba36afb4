// The body of PATCH /api/v2/templates/{id} that changes a template's display name, description and icon
// and nothing else. Coder treats that body as the template's whole state (coder/coder v2.26.1
// codersdk/templates.go UpdateTemplateMeta, coderd/templates.go patchTemplateMeta): a field it declares
// as a pointer keeps its value when omitted, but an omitted number or boolean is stored as 0 or false.
// So every such setting is sent as the template has it now, read from Coder just before.
import type { Schemas } from '../../../coder/api-types.ts';

export interface TemplateMetadata {
  display_name: string;
  description: string;
  icon: string;
}

/** The non-pointer settings of UpdateTemplateMeta (v2.24 to v2.36 alike), copied from the template as read. */
const keptSettings = [
  'default_ttl_ms',
  'activity_bump_ms',
  'allow_user_autostart',
  'allow_user_autostop',
  'allow_user_cancel_workspace_jobs',
  'failure_ttl_ms',
  'time_til_dormant_ms',
  'time_til_dormant_autodelete_ms',
  'require_active_version',
] as const satisfies readonly (keyof Schemas['UpdateTemplateMeta'] & keyof Schemas['Template'])[];

/**
 * `wanted` on top of `current`'s settings. A setting `current` does not carry is left out: the Coder that
 * answered without it has no such setting to reset. The pointer settings (autostart and autostop
 * requirements, deprecation message, port sharing, CORS, parameter flow) are left out, which keeps them;
 * update_workspace_* false touches no workspace, disable_everyone_group_access false keeps the group ACL.
 */
export function templateMetaUpdate(current: Schemas['Template'], wanted: TemplateMetadata): Schemas['UpdateTemplateMeta'] {
  const body: Record<string, unknown> = { name: current.name, ...wanted };
  for (const key of keptSettings) if (current[key] !== undefined && current[key] !== null) body[key] = current[key];
  body.update_workspace_last_used_at = false;
  body.update_workspace_dormant_at = false;
  body.disable_everyone_group_access = false;
  return body as Schemas['UpdateTemplateMeta'];
}

/** Whether the template already shows `wanted` (Coder would answer 304). */
export function hasMetadata(template: Schemas['Template'], wanted: TemplateMetadata): boolean {
  return (
    wanted.display_name === (template.display_name ?? '') &&
    wanted.description === (template.description ?? '') &&
    wanted.icon === (template.icon ?? '')
  );
}
