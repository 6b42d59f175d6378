/**
 * Where the data files and assets that ship beside the code are: `src/` when run from source, `dist/` when built.
 * This module sits at the top of that folder, and so does every chunk of the bundled server (scripts/build.mjs), so
 * `import.meta.url` here names the folder whichever way the code is run; a module's own `import.meta.url` would not
 * once it is bundled.
 */
const ROOT = new URL('./', import.meta.url);

/** The URL of a shipped file, by its path under `src/` (e.g. `catalog/data/chat.json`). */
export const shippedFile = (relative: string): URL => new URL(relative, ROOT);
