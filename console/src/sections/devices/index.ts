// The devices section: paired envd daemons and the pairing requests waiting for an answer.
import type { ConsoleRoute } from '../../routes';
import { DevicePage } from './DevicePage';
import { DevicesPage } from './DevicesPage';

export const devicesRoutes: ConsoleRoute[] = [
  { path: '/devices', component: DevicesPage, nav: 'Devices' },
  { path: '/devices/:id', component: DevicePage },
];
