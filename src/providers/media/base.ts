/** What every media adapter states about itself: its name, how file inputs reach it, its hosts, its missing key. */
import { PROVIDER_ENV, type ProviderConfig, type ProviderName } from '../../config/providers.js';
import type { MediaProvider } from './types.js';

export function providerBase(
  name: ProviderName,
  config: ProviderConfig,
  fileInputs: MediaProvider['fileInputs'],
  trusted: MediaProvider['trusted'],
): Pick<MediaProvider, 'name' | 'fileInputs' | 'trusted' | 'missing'> {
  return { name, fileInputs, trusted, missing: config.apiKey ? null : PROVIDER_ENV[name].key };
}
