// What a template test says about the agent it waits for, and what its deadline says when the agent never came.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../src/coder/api-types.ts';
import { agentConnectionTimeoutMessage, agentWaitMessage } from '../../../../src/controllers/codertemplatetest/agent-state.ts';
import { deadlineExceeded } from '../../../../src/controllers/codertemplatetest/deadline.ts';
import { R, wait } from '../../../../src/controllers/codertemplatetest/step.ts';
import { aTemplateTest } from '../../../fixtures/codertemplatetest.ts';

type Agent = Schemas['WorkspaceAgent'];
const anAgent = (status: Agent['status'], lifecycle: Agent['lifecycle_state']): Agent =>
  ({ id: '5f0c2b1e-3d4a-4c5b-9e6f-7a8b9c0d1e2f', name: 'main', status, lifecycle_state: lifecycle }) as Agent;
const aTest = (timeoutSeconds?: number) =>
  aTemplateTest('t')
    .withSpec(timeoutSeconds === undefined ? {} : { timeoutSeconds })
    .build();

describe('a template test waiting for an agent', () => {
  it('names the agent by name with the status and lifecycle Coder reports', () => {
    assert.equal(
      agentWaitMessage(anAgent('connecting', 'created')),
      'Agent "main" has not connected yet (status connecting, lifecycle created).',
    );
    assert.equal(agentWaitMessage(anAgent('connected', 'starting')), 'Agent "main" is connected and not ready yet (lifecycle starting).');
  });

  it('says plainly that the agent did not connect within spec.timeoutSeconds when the deadline ends the wait', () => {
    const waiting = wait(R.WaitingForAgents, agentWaitMessage(anAgent('connecting', 'created')));
    const step = deadlineExceeded(aTest(60), waiting);
    assert.equal(step.kind, 'fail');
    assert.equal(step.reason, R.DeadlineExceeded);
    assert.equal(
      step.message,
      'Agent "main" did not connect within spec.timeoutSeconds (60s); it was last seen with status connecting, lifecycle created.',
    );
  });

  it('says the agent connected but was not ready, with the default timeout when the spec sets none', () => {
    const last = { reason: R.WaitingForAgents, message: agentWaitMessage(anAgent('connected', 'starting')) };
    assert.equal(
      deadlineExceeded(aTest(), last).message,
      'Agent "main" connected but was not ready within spec.timeoutSeconds (900s); it was last seen with lifecycle starting.',
    );
  });

  it('gives the last wait of any other reason as it was', () => {
    const last = { reason: R.WaitingForBuild, message: 'The start build of workspace w is running.' };
    assert.equal(
      deadlineExceeded(aTest(60), last).message,
      'The test did not finish within spec.timeoutSeconds (60s). Last wait: WaitingForBuild: The start build of workspace w is running.',
    );
  });

  it("names the template's connection_timeout when Coder reports the agent timed out", () => {
    assert.equal(
      agentConnectionTimeoutMessage(anAgent('timeout', 'created')),
      'Agent "main" did not connect within the connection_timeout its template\'s coder_agent sets (status timeout, lifecycle created).',
    );
  });
});
