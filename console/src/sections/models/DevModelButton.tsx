// "Add the offline development model": a `development` provider and a model `dev` on it (its scripted
// `echo` model), so a new user can run an agent before configuring any real model service.
import { ConsoleCreateModelDocument, ConsoleCreateModelProviderDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { useMutation } from '../../api';
import { ErrorNotice } from '../../components/ui';

export const DEV_MODEL_KEY = 'dev';

export function DevModelButton({
  existingProviderId,
  onDone,
}: {
  /** An enabled development provider already in the workspace: reused, so a second click makes no second provider. */
  existingProviderId: string | undefined;
  onDone(key: string): Promise<void>;
}) {
  const [createProvider, providerState] = useMutation(ConsoleCreateModelProviderDocument);
  const [createModel, modelState] = useMutation(ConsoleCreateModelDocument);
  const [busy, setBusy] = useState(false);
  return (
    <div className="dev-model">
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            let providerId = existingProviderId;
            if (!providerId) {
              const provider = await createProvider({
                input: {
                  type: 'development',
                  name: 'Offline development model',
                  description: 'Scripted answers, no network (for trying agents)',
                },
              });
              if (!provider) return;
              providerId = provider.createProvider.provider.id;
            }
            const model = await createModel({
              input: {
                key: DEV_MODEL_KEY,
                providerId,
                providerModel: 'echo',
                name: 'Offline development model',
              },
            });
            if (model) await onDone(model.createModel.model.key);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? 'Adding…' : 'Add the offline development model'}
      </button>{' '}
      <span className="muted">
        A provider of type development and a model “{DEV_MODEL_KEY}” that echoes: try an agent at once, offline.
      </span>
      <ErrorNotice error={providerState.error ?? modelState.error} title="Could not add the development model" />
    </div>
  );
}
