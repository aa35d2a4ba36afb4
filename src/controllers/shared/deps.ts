// What every controller is built from, made once by the binary and handed to each controller's setup().
import type { OperatorRoles } from '../../coder/operator-access/roles.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Writer } from '../../runtime/writer.ts';
import type { CoderFacts } from './coder-facts.ts';
import type { CoderClientFor } from '../../controlplane/coder-client.ts';
import type { OperatorMetrics } from './metrics.ts';

/** The coder-k8s-operator user and its token in Coder's database (src/coder/operator-access). */
export interface OperatorAccessBackend {
  ensure(input: {
    postgresURL: string;
    existingToken?: string;
    tokenName: string;
    lifetimeSeconds: number;
    renewBeforeSeconds?: number;
    /** The operator user's Coder roles, written where they differ. */
    roles?: OperatorRoles;
    /** Keeps a new token before it is committed; if it throws, the token is rolled back. */
    store?: (token: string) => Promise<void>;
    signal?: AbortSignal;
  }): Promise<{ token: string; rotated: boolean; expiresAt: Date }>;
  revoke(input: { postgresURL: string; tokenName: string; signal?: AbortSignal }): Promise<{ deleted: number }>;
  /** Read-only: whether `token` is a live key of this name of the operator's own user. */
  check(input: { postgresURL: string; tokenName: string; token: string; signal?: AbortSignal }): Promise<{ live: boolean }>;
}

export interface ControllerDeps {
  writer: Writer;
  events: EventRecorder;
  logger: Logger;
  now(): Date;
  /** A Coder client for a control plane's in-cluster Service (same-origin rule), with the operator token. */
  coderClient: CoderClientFor;
  operatorAccess: OperatorAccessBackend;
  /**
   * How often objects kept in Coder (AI providers, MCP servers, AI Gateway keys) are compared with Coder and
   * repaired (--coder-resync-period); defaultCoderResyncMs when unset.
   */
  coderResyncMs?: number;
  /** What each control plane's Coder says about itself, shared by every controller; each setup makes its own when unset. */
  coderFacts?: CoderFacts;
  /** The operator's own metrics; none are recorded when unset. */
  metrics?: OperatorMetrics;
}

/** The default of --coder-resync-period: 10 minutes. */
export const defaultCoderResyncMs = 10 * 60_000;

/** Each controllers/<kind>/controller.ts exports one: registers the controller and its watches. */
export type ControllerSetup = (manager: Manager, deps: ControllerDeps) => Controller;
