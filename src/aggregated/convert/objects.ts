// The objects this server serves (CoderWorkspace, CoderTemplate, CoderTemplateVersion), as TypeScript types.
export interface AggregatedMeta {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
}

export interface CoderWorkspaceObject {
  apiVersion: string;
  kind: 'CoderWorkspace';
  metadata: AggregatedMeta;
  spec: {
    organization: string;
    templateName: string;
    templateVersionID?: string;
    running: boolean;
    ttlMillis?: number;
    autostartSchedule?: string;
  };
  status?: {
    id?: string;
    ownerName?: string;
    organizationName?: string;
    templateName?: string;
    latestBuildID?: string;
    latestBuildStatus?: string;
    autoShutdown?: string;
    lastUsedAt?: string;
  };
}

export interface CoderTemplateObject {
  apiVersion: string;
  kind: 'CoderTemplate';
  metadata: AggregatedMeta;
  spec: {
    organization: string;
    versionID: string;
    displayName?: string;
    description?: string;
    icon?: string;
    running?: boolean;
    /** On get only; outside the resourceVersion, which the active version id already covers. */
    files?: Record<string, string>;
  };
  status?: { id?: string; organizationName?: string; activeVersionID?: string; deprecated?: boolean; updatedAt?: string };
}

export interface CoderTemplateVersionObject {
  apiVersion: string;
  kind: 'CoderTemplateVersion';
  metadata: AggregatedMeta;
  spec: { organization: string; templateName: string; message?: string };
  status: {
    id: string;
    templateID?: string;
    active: boolean;
    archived: boolean;
    createdBy?: string;
    updatedAt?: string;
    job: { status: string; errorCode?: string; startedAt?: string; completedAt?: string };
  };
}

export type AggregatedObject = CoderWorkspaceObject | CoderTemplateObject | CoderTemplateVersionObject;
