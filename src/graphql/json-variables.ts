// v1 clients declare their document variables `JSON` (`$labels: JSON`), as the schema typed those
// inputs before they became document scalars (src/graphql/document-scalars.ts). graphql-js's
// VariablesInAllowedPositionRule would refuse such a variable where a `Labels` is expected, so every
// place that validates operations (Yoga over HTTP and SSE, graphql-ws through Yoga's pipeline, the
// REST shim and the protocol adapters at start-up) runs this rule in its stead: the same check,
// except that a variable of type JSON may stand where a document scalar is expected (on the wire a
// document scalar is JSON). The value is still checked by the scalar while variables are coerced.
import {
  GraphQLError,
  Kind,
  VariablesInAllowedPositionRule,
  isInputObjectType,
  isListType,
  isNonNullType,
  isNullableType,
  isScalarType,
  isTypeSubTypeOf,
  specifiedRules,
  typeFromAST,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLInputType,
  type GraphQLSchema,
  type GraphQLType,
  type ValidationRule,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Document scalars carry `extensions.document` (set by documentScalar). */
export function isDocumentScalar(type: GraphQLType): boolean {
  return isScalarType(type) && type.extensions.document === true;
}

/**
 * The variable's type with a `JSON` at its core read as the location's document scalar, when the
 * location's core is one and the wrappers line up; otherwise the variable's type unchanged. Only
 * the named type is exchanged, so nullability and lists are judged exactly as the standard rule does.
 */
function asLocationScalar(varType: GraphQLType, locationType: GraphQLType): GraphQLType {
  if (isNonNullType(varType)) {
    const inner = asLocationScalar(varType.ofType, isNonNullType(locationType) ? locationType.ofType : locationType);
    return inner === varType.ofType ? varType : new GraphQLNonNull(inner as never);
  }
  const location = isNonNullType(locationType) ? locationType.ofType : locationType;
  if (isListType(varType)) {
    if (!isListType(location)) return varType;
    const inner = asLocationScalar(varType.ofType, location.ofType);
    return inner === varType.ofType ? varType : new GraphQLList(inner);
  }
  if (isScalarType(varType) && varType.name === 'JSON' && isDocumentScalar(location)) return location;
  return varType;
}

function allowedUsage(
  schema: GraphQLSchema,
  varType: GraphQLType,
  varDefault: ValueNode | undefined,
  locationType: GraphQLInputType,
  locationDefault: unknown,
): boolean {
  const candidate = asLocationScalar(varType, locationType);
  if (isNonNullType(locationType) && !isNonNullType(candidate)) {
    // A nullable variable fits a non-null position only with a non-null default of its own or the position's.
    const hasDefault = (varDefault !== undefined && varDefault.kind !== Kind.NULL) || locationDefault !== undefined;
    return hasDefault && isTypeSubTypeOf(schema, candidate, locationType.ofType);
  }
  return isTypeSubTypeOf(schema, candidate, locationType);
}

/** VariablesInAllowedPositionRule, with JSON variables allowed where a document scalar is expected. */
export const JsonVariablesInAllowedPositionRule: ValidationRule = (context) => {
  let definitions = new Map<string, VariableDefinitionNode>();
  return {
    OperationDefinition: {
      enter() {
        definitions = new Map();
      },
      leave(operation) {
        const schema = context.getSchema();
        for (const { node, type, defaultValue, parentType } of context.getRecursiveVariableUsages(operation)) {
          const name = node.name.value;
          const definition = definitions.get(name);
          if (!definition || !type) continue;
          const varType = typeFromAST(schema, definition.type);
          if (!varType) continue;
          if (!allowedUsage(schema, varType, definition.defaultValue, type, defaultValue)) {
            // The standard rule's message, word for word: clients and tests match on it.
            context.reportError(
              new GraphQLError(`Variable "$${name}" of type "${String(varType)}" used in position expecting type "${String(type)}".`, {
                nodes: [definition, node],
              }),
            );
          }
          if (isInputObjectType(parentType) && parentType.isOneOf && isNullableType(varType)) {
            context.reportError(
              new GraphQLError(
                `Variable "$${name}" is of type "${String(varType)}" but must be non-nullable to be used for OneOf Input Object "${String(parentType)}".`,
                { nodes: [definition, node] },
              ),
            );
          }
        }
      },
    },
    VariableDefinition(node) {
      definitions.set(node.variable.name.value, node);
    },
  };
};

const swap = (rule: ValidationRule) => (rule === VariablesInAllowedPositionRule ? JsonVariablesInAllowedPositionRule : rule);

/** graphql-js's specified rules with the standard variable-position rule exchanged for ours. */
export const v1ValidationRules: readonly ValidationRule[] = specifiedRules.map(swap);

/**
 * Exchanges the rule in the pipeline's validation (Yoga's engine adds the specified rules; other
 * plugins add theirs), through envelop's supported hook: the validate function is wrapped, the rule
 * list it receives mapped.
 */
export function useJsonVariables(): Plugin {
  return {
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((schema, document, rules, ...rest) => validateFn(schema, document, (rules ?? specifiedRules).map(swap), ...rest));
    },
  };
}
