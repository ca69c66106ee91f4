// Tells the HTTP metrics which kind of operation a request to /graphql ran (query, mutation,
// subscription), without parsing its document again: the HTTP layer passes a slot in Yoga's server
// context, and this plugin fills it in from the document Yoga already parsed and validated.
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The server-context key of the slot (src/app.ts passes it to yoga.fetch). */
export const OPERATION_LABEL_SLOT = 'operationLabel';

export interface OperationLabel {
  operation?: string;
}

function mark(args: { contextValue: unknown; document: DocumentNode; operationName?: string | null }): void {
  const slot = (args.contextValue as Record<string, OperationLabel | undefined>)[OPERATION_LABEL_SLOT];
  if (slot) slot.operation = getOperationAST(args.document, args.operationName ?? undefined)?.operation;
}

export function useOperationLabel(): Plugin {
  return {
    onExecute: ({ args }) => mark(args),
    onSubscribe: ({ args }) => mark(args),
  };
}
