// What a template test says about an agent: by its name (the coder_agent resource's name, which a user
// knows; its ID is new with every build), in the state Coder last reported for it. The message of the
// wait for an agent is read back when the test's deadline ends that wait, to say the same in the past.
import type { Schemas } from '../../coder/api-types.ts';

type Agent = Schemas['WorkspaceAgent'];

/** `agent "main"`, or the ID of an agent without a name. */
function agentName(agent: Agent): string {
  return agent.name ? `"${agent.name}"` : agent.id;
}

/** The message while the test waits for `agent`, not connected or not ready yet. */
export function agentWaitMessage(agent: Agent): string {
  return agent.status === 'connected'
    ? `Agent ${agentName(agent)} is connected and not ready yet (lifecycle ${agent.lifecycle_state}).`
    : `Agent ${agentName(agent)} has not connected yet (status ${agent.status}, lifecycle ${agent.lifecycle_state}).`;
}

const waitMessage = /^Agent (\S+) (is connected and not ready yet|has not connected yet) \(([^()]*)\)\.$/;

/**
 * What an agent wait (`agentWaitMessage`) becomes when the deadline ends it: `within` says which limit it
 * was ("within spec.timeoutSeconds (900s)"). Undefined for any other message.
 */
export function agentDeadlineMessage(message: string, within: string): string | undefined {
  const match = waitMessage.exec(message);
  if (!match) return undefined;
  const [, name, wait, state] = match;
  return wait === 'has not connected yet'
    ? `Agent ${name} did not connect ${within}; it was last seen with ${state}.`
    : `Agent ${name} connected but was not ready ${within}; it was last seen with ${state}.`;
}

/** The message of an agent Coder reports timed out: it did not connect within its template's connection_timeout. */
export function agentConnectionTimeoutMessage(agent: Agent): string {
  return (
    `Agent ${agentName(agent)} did not connect within the connection_timeout its template's coder_agent sets ` +
    `(status timeout, lifecycle ${agent.lifecycle_state}).`
  );
}

/** The message of an agent whose startup or lifecycle ended it: `what` says how. */
export function agentEndedMessage(agent: Agent, what: string): string {
  return `Agent ${agentName(agent)} ${what} (lifecycle ${agent.lifecycle_state}).`;
}
