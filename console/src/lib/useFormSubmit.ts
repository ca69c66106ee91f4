// A form's submit in two steps: `read` turns the fields into what is sent (and throws on one it cannot
// read: JSON that does not parse, a malformed label), `send` sends it. A problem reading the form is
// kept as the form's error (shown with the mutation's own error); a new submit clears it first.
import { useState, type FormEvent } from 'react';

/** `read` answers undefined when there is nothing to send yet (no provider chosen). */
export function useFormSubmit<T>(read: () => T | undefined, send: (value: T) => Promise<unknown>) {
  const [formError, setFormError] = useState<unknown>(undefined);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    let value: T | undefined;
    try {
      value = read();
    } catch (error) {
      setFormError(error);
      return;
    }
    if (value !== undefined) await send(value);
  }
  return { formError, submit };
}
