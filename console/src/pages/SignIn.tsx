// Sign-in: with an email and password (a login session), or with a workspace API key.
import { useState, type FormEvent } from 'react';
import { useAuth } from '../auth';
import { ErrorNotice, Field, SubmitButton } from '../components/ui';

export function SignInPage() {
  const auth = useAuth();
  const [method, setMethod] = useState<'password' | 'api_key'>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (method === 'password') await auth.signInWithPassword(email, password, remember);
      else await auth.signInWithApiKey(apiKey, remember);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in" id="main">
      <h1>Sign in to the workspace agent console</h1>
      <div role="tablist" aria-label="Sign-in method" className="tabs">
        <button type="button" role="tab" aria-selected={method === 'password'} onClick={() => setMethod('password')}>
          Email and password
        </button>
        <button type="button" role="tab" aria-selected={method === 'api_key'} onClick={() => setMethod('api_key')}>
          API key
        </button>
      </div>
      <form onSubmit={submit} aria-label="Sign in">
        {method === 'password' ? (
          <>
            <Field label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <Field
              label="Password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </>
        ) : (
          <Field
            label="API key"
            type="password"
            autoComplete="off"
            required
            hint="A workspace API key (wsk_…). The service prints the first one when it starts on an empty database."
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
          />
        )}
        <div className="field checkbox">
          <input id="remember" type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          <label htmlFor="remember">Keep me signed in on this device</label>
        </div>
        <ErrorNotice error={error} title="Could not sign in" />
        <SubmitButton busy={busy} busyLabel="Signing in…">
          Sign in
        </SubmitButton>
      </form>
    </main>
  );
}
