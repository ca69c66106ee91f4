// The GraphQL documents of the environments pages, with the answers they are read as.
import {
  ConsoleCreateEnvironmentDocument,
  ConsoleCreateEnvironmentTemplateDocument,
  ConsoleDestroyEnvironmentDocument,
  ConsoleEnvironmentDocument,
  ConsoleEnvironmentProvidersDocument,
  ConsoleEnvironmentTemplateDocument,
  ConsoleEnvironmentTemplatesDocument,
  ConsoleEnvironmentsDocument,
  ConsoleStartEnvironmentDocument,
  ConsoleStopEnvironmentDocument,
  ConsoleUpdateEnvironmentTemplateDocument,
} from '../../../generated/graphql';
import type { EnvironmentStatus, EnvironmentViewFragment, TemplateViewFragment } from '../../../generated/graphql';

export type { EnvironmentStatus };
export const ENVIRONMENT_STATUSES: EnvironmentStatus[] = ['provisioning', 'ready', 'failed', 'stopped', 'destroyed'];

export type TemplateView = TemplateViewFragment;

export type EnvironmentView = EnvironmentViewFragment;

export const TEMPLATES = ConsoleEnvironmentTemplatesDocument;

export const TEMPLATE = ConsoleEnvironmentTemplateDocument;

/** The workspace's environment providers, and what each type's template config looks like. */
export const ENVIRONMENT_PROVIDERS = ConsoleEnvironmentProvidersDocument;

export const CREATE_TEMPLATE = ConsoleCreateEnvironmentTemplateDocument;

export const UPDATE_TEMPLATE = ConsoleUpdateEnvironmentTemplateDocument;

export const ENVIRONMENTS = ConsoleEnvironmentsDocument;

export const ENVIRONMENT = ConsoleEnvironmentDocument;

export const CREATE_ENVIRONMENT = ConsoleCreateEnvironmentDocument;

export const START_ENVIRONMENT = ConsoleStartEnvironmentDocument;
export const STOP_ENVIRONMENT = ConsoleStopEnvironmentDocument;
export const DESTROY_ENVIRONMENT = ConsoleDestroyEnvironmentDocument;
