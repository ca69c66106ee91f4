// What the drivers of platforms driven through a control-plane API over HTTP (Fly Machines,
// Kubernetes) share about that API's failures: an answer of 400 or more, the API not reachable at
// all, and how either reaches the service — during provisioning as a plain error (the environment's
// recorded provisioning failure, with the API's sentence), during work as `unavailable`.
import { EnvironmentDriverError } from '../environment-driver.js';

/** An answer of 400 or more, with the API's own sentence. */
export class ControlPlaneError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The API could not be reached at all (refused, no route, timed out). */
export class ControlPlaneUnreachable extends Error {}

/**
 * A problem during work as a state the caller can act on (409 failed_precondition), not the service's
 * failure; `instance` names what the platform calls an instance (a 404 means it is gone).
 */
export function workProblem(error: unknown, instance: string): never {
  if (error instanceof EnvironmentDriverError) throw error;
  if (error instanceof ControlPlaneError && error.status === 404)
    throw new EnvironmentDriverError('unavailable', `the environment has no ${instance} (deleted outside the service?)`);
  throw new EnvironmentDriverError('unavailable', (error as Error).message);
}

/** A failure while provisioning: the API's failures become plain errors with its sentence, others stay. */
export function provisioningProblem(error: unknown): never {
  if (error instanceof ControlPlaneError || error instanceof ControlPlaneUnreachable) throw new Error(error.message, { cause: error });
  throw error;
}
