// The GraphQL documents of the devices section: paired devices, their directories, and the pending
// pairing challenges a daemon (envd) raises when it asks to be paired.
import {
  ConsoleApproveDevicePairingDocument,
  ConsoleDeviceDirectoriesDocument,
  ConsoleDeviceDocument,
  ConsoleDevicePairingsDocument,
  ConsoleDevicesDocument,
  ConsoleRejectDevicePairingDocument,
  ConsoleRevokeDeviceDocument,
} from '../../../generated/graphql';
import type {
  ConsoleDeviceDirectoriesQuery,
  ConsoleDevicePairingsQuery,
  ConsoleDeviceQuery,
  DeviceSummaryFragment,
} from '../../../generated/graphql';

/** `status`: active | revoked. */
export type DeviceSummary = DeviceSummaryFragment;

export type DeviceInfo = ConsoleDeviceQuery['device'];

export type PairingChallenge = ConsoleDevicePairingsQuery['devicePairings'][number];

export type DirectoryListing = ConsoleDeviceDirectoriesQuery['deviceDirectories'];

export const DEVICES = ConsoleDevicesDocument;

export const DEVICE = ConsoleDeviceDocument;

export const DEVICE_DIRECTORIES = ConsoleDeviceDirectoriesDocument;

export const DEVICE_PAIRINGS = ConsoleDevicePairingsDocument;

export const APPROVE_PAIRING = ConsoleApproveDevicePairingDocument;

export const REJECT_PAIRING = ConsoleRejectDevicePairingDocument;

export const REVOKE_DEVICE = ConsoleRevokeDeviceDocument;
