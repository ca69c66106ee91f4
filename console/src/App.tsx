// The signed-in frame: a skip link, the navigation, the workspace switcher and the page.
import { useMemo } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { ClientProvider, makeClient } from './api';
import { useAuth, useWorkspace } from './auth';
import { routes } from './routes';
import { SignInPage } from './pages/SignIn';
import { PageFocus } from './components/PageFocus';
import { PageLoading } from './components/PageLoading';
import { PushActivity } from './sections/notifications/PushActivity';

function WorkspaceSwitcher() {
  const { signedIn, switchWorkspace } = useAuth();
  const workspace = useWorkspace();
  if (!signedIn) return null;
  if (signedIn.workspaces.length < 2)
    return (
      <p className="workspace-name" aria-label="Workspace">
        {workspace.name}
      </p>
    );
  return (
    <div className="field compact">
      <label htmlFor="workspace-switcher">Workspace</label>
      <select id="workspace-switcher" value={workspace.id} onChange={(event) => switchWorkspace(event.target.value)}>
        {signedIn.workspaces.map((choice) => (
          <option key={choice.id} value={choice.id}>
            {choice.name} ({choice.role})
          </option>
        ))}
      </select>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>There is no page here.</p>
    </>
  );
}

export function App() {
  const auth = useAuth();
  const credential = auth.signedIn?.credential;
  // A new client (and socket) for each credential or workspace: subscriptions never cross workspaces.
  const client = useMemo(() => (credential ? makeClient(credential) : null), [credential?.token, credential?.workspaceId]);
  if (!auth.signedIn || !client) return <SignInPage />;
  return (
    <ClientProvider client={client} key={`${credential?.token}:${credential?.workspaceId}`}>
      <PageFocus mainId="main" />
      {/* Tells the service this person is at the console, so it holds back pushes they would see anyway. */}
      <PushActivity />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="shell">
        <nav aria-label="Main" className="sidebar">
          <p className="brand">Agent console</p>
          <WorkspaceSwitcher />
          <ul>
            {routes
              .filter((route) => route.nav)
              .map((route) => (
                <li key={route.path}>
                  <NavLink to={route.path} end={route.path === '/'}>
                    {route.nav}
                  </NavLink>
                </li>
              ))}
          </ul>
          <div className="who">
            <span className="muted">{auth.signedIn.user?.email ?? 'API key'}</span>
            <button type="button" className="secondary" onClick={() => void auth.signOut()}>
              Sign out
            </button>
          </div>
        </nav>
        <main id="main" tabIndex={-1} className="content">
          <PageLoading>
            <Routes>
              {routes.map((route) => (
                <Route key={route.path} path={route.path} element={<route.component />} />
              ))}
              <Route path="*" element={<NotFound />} />
            </Routes>
          </PageLoading>
        </main>
      </div>
    </ClientProvider>
  );
}
