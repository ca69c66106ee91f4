// The shapes the models pages read (model providers, their types, models), derived from the types
// generated for console/src/graphql/models.graphql (the pages import the documents themselves from
// console/generated).
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

export type ModelView = ModelViewFragment;

export type ModelFilters = ConsoleModelsQueryVariables;

/** One model as its page shows it: the list's fields, its version and its provider. */
export type ModelDetail = ConsoleModelQuery['model'];
