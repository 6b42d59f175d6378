/** Every area of settings, in the order the README's tables show them: together they are the whole schema. */
import { chatSettings } from './chat.js';
import { configFileSettings } from './config-file.js';
import { dashboardSettings } from './dashboard.js';
import { envFileSettings } from './env-file.js';
import { faceSettings } from './face.js';
import { fetchSettings } from './fetch.js';
import { ledgerSettings } from './ledger.js';
import { mediaSettings } from './media.js';
import { modelsSettings } from './models.js';
import { mppSettings } from './mpp.js';
import { providerKeySettings, upstreamSettings } from './providers.js';
import { screenshotSettings } from './screenshot.js';
import { serverSettings } from './server.js';
import type { SettingsArea } from './setting.js';
import { storageSettings } from './storage.js';
import { toolsSettings } from './tools.js';
import { visionSettings } from './vision.js';
import { workersSettings } from './workers.js';
import { x402Settings } from './x402.js';

export const SETTINGS_AREAS: readonly SettingsArea[] = [
  serverSettings,
  envFileSettings,
  storageSettings,
  upstreamSettings,
  chatSettings,
  ledgerSettings,
  fetchSettings,
  mediaSettings,
  screenshotSettings,
  modelsSettings,
  configFileSettings,
  providerKeySettings,
  x402Settings,
  mppSettings,
  dashboardSettings,
  toolsSettings,
  visionSettings,
  faceSettings,
  workersSettings,
];
