// ttlSecondsAfterFinished: a final test whose workspace is gone is deleted this long after
// it finished (the later of completionTime and the WorkspaceDeleted transition), by UID so a newer object
// with the same name is never deleted. Retained tests and those whose control plane is gone never expire.
import { coderTemplateTestResource } from '../../../generated/clients/codertemplatetest.ts';
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { TemplateTestContext } from './context.ts';
import { isFinal, workspaceDeletedCondition, type TestOutcome } from './status.ts';

export async function expire(ctx: TemplateTestContext, test: CoderTemplateTest): Promise<TestOutcome> {
  const ttl = test.spec.ttlSecondsAfterFinished;
  const deleted = workspaceDeletedCondition(test.status);
  if (ttl === undefined || test.metadata.deletionTimestamp || !isFinal(test.status) || deleted?.status !== 'True') return {};
  const finished = Math.max(Date.parse(test.status?.completionTime ?? '') || 0, Date.parse(deleted.lastTransitionTime) || 0);
  const remaining = finished + ttl * 1000 - ctx.now().getTime();
  if (remaining > 0) return { requeueAfterMs: remaining };
  await ctx.writer.deleteExactly(coderTemplateTestResource, test);
  return {};
}
