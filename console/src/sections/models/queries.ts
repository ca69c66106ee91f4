// The GraphQL documents of the models pages (model providers, their types, models), with the answers
// they are read as.
import {
  ConsoleCreateModelDocument,
  ConsoleCreateModelProviderDocument,
  ConsoleModelDocument,
  ConsoleModelProviderDocument,
  ConsoleModelProviderTypesDocument,
  ConsoleModelProvidersDocument,
  ConsoleModelsDocument,
  ConsoleTestModelProviderDocument,
  ConsoleUpdateModelDocument,
  ConsoleUpdateModelProviderDocument,
} from '../../../generated/graphql';
import { jsonObject } from '../../lib/json';
import type {
  ConsoleModelProviderTypesQuery,
  ConsoleModelQuery,
  ConsoleModelsQueryVariables,
  ModelViewFragment,
  ProviderViewFragment,
} from '../../../generated/graphql';

export type ProviderView = ProviderViewFragment;

/** A model provider type: the schemas are JSON Schema documents (read them with `jsonSchema`). */
export type ProviderTypeView = ConsoleModelProviderTypesQuery['providerTypes'][number];
type ModelApis = Extract<ProviderTypeView, { modelApis: unknown }>['modelApis'];
/** One model API of a model provider type, with the JSON Schema of the settings it reads. */
export type ModelApiView = ModelApis[number];

/** The model APIs a provider type offers (only model provider types have any). */
export function modelApisOf(type: ProviderTypeView | undefined): ModelApis {
  return type && 'modelApis' in type ? type.modelApis : [];
}

/** The little of a JSON Schema document the forms read: its members, which are required. */
export interface JsonSchema {
  properties?: Record<string, { description?: string; type?: string | string[] }>;
  required?: string[];
  [member: string]: unknown;
}

/** A JSON Schema the service sent (a JSON scalar) as the forms read it; anything but an object reads as empty. */
export function jsonSchema(value: unknown): JsonSchema {
  return jsonObject(value) as JsonSchema;
}

export const MODEL_PROVIDER_TYPES = ConsoleModelProviderTypesDocument;

export const MODEL_PROVIDERS = ConsoleModelProvidersDocument;

export const MODEL_PROVIDER = ConsoleModelProviderDocument;

export const CREATE_MODEL_PROVIDER = ConsoleCreateModelProviderDocument;

export const UPDATE_MODEL_PROVIDER = ConsoleUpdateModelProviderDocument;

export const TEST_MODEL_PROVIDER = ConsoleTestModelProviderDocument;

export type ModelView = ModelViewFragment;

export type ModelFilters = ConsoleModelsQueryVariables;

export const MODELS = ConsoleModelsDocument;

export const CREATE_MODEL = ConsoleCreateModelDocument;

/** One model as its page shows it: the list's fields, its version and its provider. */
export type ModelDetail = ConsoleModelQuery['model'];

export const MODEL = ConsoleModelDocument;

export const UPDATE_MODEL = ConsoleUpdateModelDocument;
