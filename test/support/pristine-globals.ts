// Unit test files share their worker's process (vitest's `isolate: false` in vitest.config.ts's `unit` project). The
// one global a file changes for those after it is Request/Response: @hono/node-server installs its own classes when
// a file starts a server, and a later file whose requests are built by a library holding the other class would have
// them read as paths by Hono's `app.request`. Every file starts with the classes the process started with, as it
// would alone.
const PRISTINE = Symbol.for('kasir.test.pristineFetchClasses');
const NAMES = ['Request', 'Response'] as const;
type Classes = { Request: typeof Request; Response: typeof Response };
const holder = globalThis as typeof globalThis & { [PRISTINE]?: Classes };
holder[PRISTINE] ??= { Request: globalThis.Request, Response: globalThis.Response };
const pristine = holder[PRISTINE];
for (const name of NAMES) {
  if (globalThis[name] !== pristine[name])
    Object.defineProperty(globalThis, name, { value: pristine[name], writable: true, configurable: true });
}
