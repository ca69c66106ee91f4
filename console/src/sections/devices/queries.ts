// The GraphQL documents of the devices section: paired devices, their directories, and the pending
// pairing challenges a daemon (envd) raises when it asks to be paired.
import { gql } from '../../api';

export interface DeviceSummary {
  id: string;
  name: string;
  platform: string;
  /** active | revoked */
  status: string;
  online: boolean;
  lastSeenAt: string | null;
  createdAt: string;
}

export interface DeviceInfo extends DeviceSummary {
  workspaceId: string;
  approvedById: string;
  publicKey: string;
  revokedAt: string | null;
  updatedAt: string;
}

export interface PairingChallenge {
  id: string;
  userCode: string;
  deviceName: string;
  platform: string;
  publicKeyFingerprint: string;
  status: string;
  workspaceId: string | null;
  expiresAt: string;
  createdAt: string;
}

export interface DirectoryListing {
  deviceId: string;
  path: string | null;
  entries: { name: string; path: string }[];
  truncated: boolean;
}

const SUMMARY = 'id name platform status online lastSeenAt createdAt';

export const DEVICES = gql<{ devices: DeviceSummary[] }, Record<string, never>>(`query ConsoleDevices { devices { ${SUMMARY} } }`);

export const DEVICE = gql<{ device: DeviceInfo }, { id: string }>(
  `query ConsoleDevice($id: String!) { device(id: $id) { ${SUMMARY} workspaceId approvedById publicKey revokedAt updatedAt } }`,
);

export const DEVICE_DIRECTORIES = gql<{ deviceDirectories: DirectoryListing }, { id: string; path: string | null }>(
  `query ConsoleDeviceDirectories($id: String!, $path: String) {
    deviceDirectories(id: $id, path: $path) { deviceId path entries { name path } truncated }
  }`,
);

export const DEVICE_PAIRINGS = gql<{ devicePairings: PairingChallenge[] }, { userCode: string | null }>(
  `query ConsoleDevicePairings($userCode: String) {
    devicePairings(userCode: $userCode) { id userCode deviceName platform publicKeyFingerprint status workspaceId expiresAt createdAt }
  }`,
);

export const APPROVE_PAIRING = gql<{ approveDevicePairing: { device: DeviceSummary } }, { id: string }>(
  `mutation ConsoleApproveDevicePairing($id: String!) { approveDevicePairing(id: $id) { device { ${SUMMARY} } } }`,
);

export const REJECT_PAIRING = gql<{ rejectDevicePairing: { rejected: boolean } }, { id: string }>(
  `mutation ConsoleRejectDevicePairing($id: String!) { rejectDevicePairing(id: $id) { rejected } }`,
);

export const REVOKE_DEVICE = gql<{ revokeDevice: { device: DeviceSummary } }, { id: string }>(
  `mutation ConsoleRevokeDevice($id: String!) { revokeDevice(id: $id) { device { ${SUMMARY} } } }`,
);
