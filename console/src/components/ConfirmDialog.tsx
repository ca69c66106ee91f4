// A modal question before a consequential action (archive, revoke, delete, rotate). The native <dialog>
// opened with showModal() keeps focus inside it; it is named by its heading, focus starts on "Cancel" so
// a stray Enter never confirms, and Escape cancels.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export interface ConfirmQuestion {
  /** The dialog's heading (its accessible name), e.g. "Revoke build-box?". */
  title: string;
  /** The button in the dialog that carries the action out. */
  confirmLabel: string;
  /** A destructive action: the confirm button is styled as dangerous. Default true. */
  danger?: boolean;
  /** What will happen, in plain words. */
  children?: ReactNode;
}

/** The dialog itself, open while it is rendered: the caller renders it when it asks, and removes it on an answer. */
export function ConfirmDialog({
  title,
  confirmLabel,
  danger = true,
  busy,
  onConfirm,
  onCancel,
  children,
}: ConfirmQuestion & {
  /** The action is under way: the confirm button waits. */
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    cancel.current?.focus();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: the caller decides (it removes the dialog), so React's state and the element agree.
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div>{children}</div>
      <div className="actions">
        <button type="button" ref={cancel} className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : undefined} onClick={onConfirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A button whose action waits for a confirmation; the dialog closes as the action starts, and focus
 * returns to the button when the question is cancelled. */
export function ConfirmButton({
  label,
  onConfirm,
  disabled,
  danger = true,
  ...question
}: ConfirmQuestion & {
  /** The button that opens the dialog. */
  label: string;
  onConfirm(): void | Promise<unknown>;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button type="button" ref={opener} className={danger ? 'danger' : 'secondary'} disabled={disabled} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open ? (
        <ConfirmDialog
          {...question}
          danger={danger}
          onCancel={() => {
            setOpen(false);
            opener.current?.focus();
          }}
          onConfirm={() => {
            setOpen(false);
            void onConfirm();
          }}
        />
      ) : null}
    </>
  );
}
