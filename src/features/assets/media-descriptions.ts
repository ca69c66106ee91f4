// What the models of `media_understanding` said about pieces of media, remembered per workspace,
// describing model and content digest (sha256 of the bytes): a resumed run, a retry or any later
// run of the workspace that meets the same media again reads the description instead of paying for
// it twice. Runs read and write it through their own call context (their workspace only).
import type { CallContext } from '../../services/call-context.js';

export interface RememberedDescription {
  description: string;
}

export async function findMediaDescription(
  call: CallContext,
  modelKey: string,
  contentSha256: string,
): Promise<RememberedDescription | null> {
  return call.db.mediaDescription.findUnique({
    where: { workspaceId_modelKey_contentSha256: { workspaceId: call.actor.workspaceId, modelKey, contentSha256 } },
    select: { description: true },
  });
}

/** Remembers a description; of two runs describing the same media at once, the first one's stays. */
export async function rememberMediaDescription(
  call: CallContext,
  entry: { modelKey: string; contentSha256: string; mediaType: string; description: string },
): Promise<void> {
  await call.db.mediaDescription.createMany({
    data: [{ workspaceId: call.actor.workspaceId, ...entry }],
    skipDuplicates: true,
  });
}
