// `/workspaces/:workspaceId/runs/:runId`, the address web-push notifications carry: the run may be in
// another workspace than the one the console acts in now. A login session that reaches that workspace
// switches to it, then the run's page opens; a credential that cannot reach it says so.
import { useEffect } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useAuth, useWorkspace } from '../../auth';
import { PageHeader } from '../../components/ui';

export function WorkspaceRunPage() {
  const { workspaceId = '', runId = '' } = useParams();
  const { signedIn, switchWorkspace } = useAuth();
  const current = useWorkspace();
  const navigate = useNavigate();
  const reachable = signedIn?.workspaces.some((workspace) => workspace.id === workspaceId) ?? false;

  useEffect(() => {
    if (!reachable) return;
    if (current.id !== workspaceId) switchWorkspace(workspaceId);
    else navigate(`/runs/${encodeURIComponent(runId)}`, { replace: true });
  }, [reachable, current.id, workspaceId, runId, switchWorkspace, navigate]);

  if (reachable)
    return (
      <p role="status" className="muted">
        Opening run {runId}…
      </p>
    );
  return (
    <>
      <PageHeader title="Run in another workspace" />
      <p role="alert" className="notice error">
        This sign-in cannot reach workspace <code>{workspaceId}</code>, where run <code>{runId}</code> is. Sign in with an account or API
        key of that workspace to see it.
      </p>
      <p>
        <Link to="/runs">Runs of {current.name}</Link>
      </p>
    </>
  );
}
