// The shapes the environments pages read, derived from the types generated for
// console/src/graphql/environments.graphql (the pages import the documents themselves from console/generated).
import type { EnvironmentStatus, EnvironmentViewFragment, TemplateViewFragment } from '../../../generated/graphql';

export type { EnvironmentStatus };
export const ENVIRONMENT_STATUSES: EnvironmentStatus[] = ['provisioning', 'ready', 'failed', 'stopped', 'destroyed'];

export type TemplateView = TemplateViewFragment;

export type EnvironmentView = EnvironmentViewFragment;
