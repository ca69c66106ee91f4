// The shapes the devices pages read (paired devices, their directories, and the pending pairing
// challenges a daemon, envd, raises when it asks to be paired), derived from the types generated for
// console/src/graphql/devices.graphql (the pages import the documents themselves from console/generated).
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
