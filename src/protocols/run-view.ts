// A run as the protocol adapters read it (their `…RunFields` fragments): what a protocol needs to say
// how the run stands and what a waiting run waits for. One shape for the adapters that map runs.

/** A tool call the waiting run needs an answer for: an approval, a question (`ask_user`) or a client tool. */
export interface PendingCall {
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  presentation: { kind: string; question?: string | null; choices?: string[] | null; title?: string | null };
}

export interface RunView {
  id: string;
  threadId: string;
  status: string;
  output: unknown;
  waitReason: string | null;
  resumedById: string | null;
  failure: { code: string; message: string } | null;
  pending: { approvals: PendingCall[]; calls: PendingCall[] };
}
