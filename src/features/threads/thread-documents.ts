// The documents a thread stores in JSON columns, each defined once with its reader: the committed
// history (the model messages its sealed runs added, written only by the run's seal) and the MCP
// headers (connection id → header map, written only by the threads service after validation).
import Type from 'typebox';
import type { ModelMessage } from 'ai';
import { readDocument } from '../../lib/json-documents.js';
import { mapOf } from '../agents/documents/schema-parts.js';

/**
 * One stored model message. Checked as an object with a known `role`: its parts are the AI SDK's to
 * read, and histories written under an older SDK keep part shapes that `upgradeStoredHistory`
 * (src/engine/stored-history.ts) rewrites, so a deeper check would refuse what can still be read.
 */
const StoredModelMessage = Type.Unsafe<ModelMessage>(Type.Object({ role: Type.Enum(['system', 'user', 'assistant', 'tool']) }));
export const MessageHistoryDocument = Type.Array(StoredModelMessage);

/** A thread's MCP headers: connection id → header name → value. */
export const McpHeadersDocument = mapOf(mapOf(Type.String()));
export type McpHeaders = Record<string, Record<string, string>>;

/** A thread's committed history (`threads.message_history`); none when the column is null. */
export const storedMessageHistory = (value: unknown): ModelMessage[] =>
  value === null || value === undefined ? [] : readDocument(MessageHistoryDocument, value, 'threads.message_history');

/** A thread's MCP headers (`threads.mcp_headers`); none when the column is null. */
export const storedMcpHeaders = (value: unknown): McpHeaders =>
  value === null || value === undefined ? {} : readDocument(McpHeadersDocument, value, 'threads.mcp_headers');
