import { permissionDenied } from '../../lib/errors.js';
import type { Actor, Permission } from '../../services/deps.js';

export function requirePermission(actor: Actor, permission: Permission): void {
  if (!actor.permissions.has(permission)) throw permissionDenied(permission);
}
