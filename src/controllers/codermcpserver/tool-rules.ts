// Per-tool rules (spec.tools.rules) in Coder's two shapes. Coder's API reference after v2.36.0 first stored
// a rule as {tool, enabled} (coder/coder docs/reference/api/mcpservers.md at 92c0cd27) and then as
// {tool, action, enabled}: action is enabled, disabled or escalate, enabled is the older form that Coder keeps
// in step (escalate reads as disabled), and a rule without action is decided by enabled (the same file at
// 46868242). No release up to v2.36.0 has rules at all (codersdk/mcp.go of v2.36.0). The operator sends
// both fields, so either shape stores what spec says, and compares what the rule does, not its fields.
import type { Schemas } from '../../coder/api-types.ts';

export type ToolAction = 'enabled' | 'disabled' | 'escalate';
export interface SpecToolRule {
  tool: string;
  action: ToolAction;
}
type WireRule = Schemas['MCPToolRule'];

/** The rules as sent: action, and enabled true only for enabled (Coder's own mirroring). */
export function toolRulesRequest(rules: readonly SpecToolRule[]): WireRule[] {
  return rules.map((r) => ({ tool: r.tool, action: r.action, enabled: r.action === 'enabled' }));
}

/** What a stored rule does: its action, else what its enabled flag says. */
export function effectiveAction(rule: Partial<WireRule>): ToolAction {
  if (rule.action) return rule.action;
  return rule.enabled ? 'enabled' : 'disabled';
}

/** Whether Coder stored these rules in the older shape (no action field), which has no escalate. */
export function actionsUnknown(stored: readonly Partial<WireRule>[] | null | undefined): boolean {
  return (stored ?? []).some((r) => r.action === undefined);
}

/** The rules as a Coder that knows only enabled stores them: escalate becomes disabled. */
export function withoutEscalate(rules: readonly SpecToolRule[]): SpecToolRule[] {
  return rules.map((r) => (r.action === 'escalate' ? { tool: r.tool, action: 'disabled' } : r));
}

/** Whether the stored rules do what `wanted` says, in any order. */
export function toolRulesMatch(wanted: readonly SpecToolRule[], stored: readonly Partial<WireRule>[] | null | undefined): boolean {
  const key = (rules: { tool?: string; action: ToolAction }[]) =>
    rules
      .map((r) => `${r.tool ?? ''}=${r.action}`)
      .sort()
      .join('\n');
  return key([...wanted]) === key((stored ?? []).map((r) => ({ tool: r.tool ?? '', action: effectiveAction(r) })));
}
