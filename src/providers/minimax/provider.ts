/** The MiniMax adapter: text-to-speech (`/v1/t2a_v2`) and music (`/v1/music_generation`) at MINIMAX_BASE_URL, one exchange each. */
import type { ProviderConfig } from '../../config/providers.js';
import { providerBase } from '../media/base.js';
import type { MediaProvider } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { miniMaxHeaders, miniMaxTrustedHosts } from './config.js';
import { miniMaxFormat, miniMaxRequest } from './request.js';
import { miniMaxAudio } from './response.js';

export function createMiniMaxProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = miniMaxHeaders(config);
  return {
    ...providerBase('minimax', config, 'url', miniMaxTrustedHosts(config)),
    async run(call) {
      const { path, body } = miniMaxRequest(call);
      return miniMaxAudio(await client.postJson(path, body, headers, call.signal), miniMaxFormat(call));
    },
  };
}
