// Forms that keep their fields as one draft object (a connection's server, a webhook subscription, an
// answer to a pending call) bind each text control to one member of it: the control shows the member
// and a new text becomes a new draft with only that member changed.

/** The members of `D` that hold text. */
type TextMembers<D> = { [K in keyof D]: D[K] extends string ? K : never }[keyof D];

/** `{...bind('url')}` gives a Field, TextArea or Select the draft's `url` and writes a change back. */
export function draftBinder<D extends object>(draft: D, onChange: (draft: D) => void) {
  return (member: TextMembers<D>) => ({
    value: draft[member] as string,
    onValue: (value: string) => onChange({ ...draft, [member]: value }),
  });
}
