// The kinds of media a message part may carry besides text. Model APIs declare which of them they
// read (src/providers/model-types.ts); agents name a model to describe the others
// (`media_understanding`).
export const MEDIA_KINDS = ['image', 'audio', 'video'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export const isMediaKind = (value: unknown): value is MediaKind => MEDIA_KINDS.includes(value as MediaKind);
