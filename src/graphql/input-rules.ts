// Applies the input rules (src/lib/input-rules.ts) to every operation before it executes: its
// variable values (raw, before coercion, so a variable nested 20,000 levels is refused before
// anything walks it recursively) and the string literals in its document. HTTP, SSE, graphql-ws
// and the REST shim all execute through this pipeline, so the rules hold on every surface.
import { Kind, visit, type DocumentNode, type ExecutionResult, type OperationDefinitionNode, type TypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { invalidArgument, isAppError } from '../lib/errors.js';
import { checkId, checkText, checkValue, MAX_JSON_DEPTH } from '../lib/input-rules.js';

function operationOf(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
}

function namedTypeName(type: TypeNode): string {
  let node = type;
  while (node.kind !== Kind.NAMED_TYPE) node = node.type;
  return node.name.value;
}

/**
 * Field naming follows the one GraphQL errors already use (src/graphql/errors.ts): a problem inside
 * an input object variable is named by its path inside it (`title`, `labels.team`), a problem with a
 * whole variable by the variable's name (`q`, `agentId`). The REST shim turns these into snake_case.
 */
function checkVariables(operation: OperationDefinitionNode, variables: Record<string, unknown>): void {
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const value = variables[name];
    if (value === undefined || value === null) continue;
    if (namedTypeName(definition.type) === 'ID') {
      for (const id of Array.isArray(value) ? value : [value]) if (typeof id === 'string') checkId(id, name);
    }
    if (typeof value === 'object' && !Array.isArray(value)) {
      // An input object: level 1 is the object itself, its members start at level 2.
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        checkText(key, name);
        checkValue(item, key, 1);
      }
    } else {
      checkValue(value, name);
    }
  }
}

// Literals depend on the document alone, and Yoga (and the REST shim) reuse parsed documents:
// each operation is walked once.
const literalsChecked = new WeakMap<OperationDefinitionNode, unknown>();

/** String literals in the document, named by the argument (and input fields) they sit in. */
function checkLiterals(operation: OperationDefinitionNode): void {
  if (literalsChecked.has(operation)) {
    const refusal = literalsChecked.get(operation);
    if (refusal) throw refusal;
    return;
  }
  try {
    walkLiterals(operation);
    literalsChecked.set(operation, null);
  } catch (error) {
    literalsChecked.set(operation, error);
    throw error;
  }
}

function walkLiterals(operation: OperationDefinitionNode): void {
  const path: string[] = [];
  visit(operation, {
    Argument: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    ObjectField: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    StringValue: (node) => checkText(node.value, path.join('.') || 'document'),
  });
}

function check(args: {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
}): ExecutionResult | null {
  const operation = operationOf(args.document, args.operationName);
  if (!operation) return null; // graphql-js reports the missing operation itself
  try {
    checkVariables(operation, args.variableValues ?? {});
    checkLiterals(operation);
    return null;
  } catch (error) {
    if (isAppError(error)) return { errors: [error] };
    throw error;
  }
}

/** How deep a GraphQL document may nest (selection sets, lists and objects together). */
export const MAX_DOCUMENT_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * The deepest nesting of `{`, `[` and `(` in a GraphQL document, skipping strings and comments.
 * graphql-js parses recursively: a literal nested a few thousand levels would overflow its stack,
 * so a document is measured (iteratively) before it is parsed.
 */
export function documentDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '#') {
      while (index < text.length && text[index] !== '\n' && text[index] !== '\r') index++;
    } else if (char === '"') {
      if (text.startsWith('"""', index)) {
        let end = text.indexOf('"""', index + 3);
        while (end !== -1 && text[end - 1] === '\\') end = text.indexOf('"""', end + 3); // \""" is an escaped delimiter
        index = end === -1 ? text.length : end + 2;
      } else {
        index++;
        while (index < text.length && text[index] !== '"' && text[index] !== '\n') index += text[index] === '\\' ? 2 : 1;
      }
    } else if (char === '{' || char === '[' || char === '(') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (char === '}' || char === ']' || char === ')') {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

export function useInputRules(): Plugin {
  return {
    onParse: ({ params, setParseFn }) => {
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      if (documentDepth(text) > MAX_DOCUMENT_DEPTH) {
        setParseFn(() => {
          throw invalidArgument(`the GraphQL document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`, 'query', {
            max_depth: MAX_DOCUMENT_DEPTH,
          });
        });
      }
    },
    onExecute: ({ args, setResultAndStopExecution }) => {
      const refused = check(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const refused = check(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
